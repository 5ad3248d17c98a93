#pragma once
// --devices all|0,2,... and --mixed-devices: a measured run on several GPUs
// of this host, one worker process each (memtune/measure/device_list.hpp). A host
// whose listed GPUs are of several models is refused unless --mixed-devices,
// which tunes each model apart, one result (and record, report) per model.
#include <memtune/tune/tuner.hpp>

#include <string>

namespace CLI {
class App;
}

namespace memtune::cli {

struct DevicesOptions {
  std::string devices; // "" (--device alone), "all" or "0,2"
  bool mixed = false;  // --mixed-devices
};

void add_devices_options(CLI::App& command, DevicesOptions& o);

// Fills options.devices. ArgumentError (exit 2) for text that is not 'all'
// or ordinals, for --devices with --device, for several GPUs with
// --no-isolation (candidates in this process run on one GPU), and for
// --mixed-devices without --devices.
void apply_devices_options(TuneOptions& options, const DevicesOptions& o, bool device_given, bool no_isolation);

} // namespace memtune::cli
