#include "devices_option.hpp"

#include <memtune/io/errors.hpp>

#include <CLI/CLI.hpp>

namespace memtune::cli {

void add_devices_options(CLI::App& sub, DevicesOptions& o) {
  sub.add_option("--devices", o.devices,
                 "measure on several GPUs of this host, one worker process each: 'all' or ordinals such as 0,2 "
                 "(the GPUs must be of one model; bayes then proposes a batch per GPU)");
  sub.add_flag("--mixed-devices", o.mixed,
               "with --devices on a host of several GPU models: tune each model apart, on its own GPUs, one "
               "result (and --record/--report file with the model in its name) per model");
}

void apply_devices_options(TuneOptions& t, const DevicesOptions& o, bool device_given, bool no_isolation) {
  if (o.devices.empty()) {
    if (o.mixed) throw ArgumentError("--mixed-devices", "needs --devices (all, or the ordinals of the GPUs to use)");
    return;
  }
  const std::string flag = "--devices " + o.devices;
  if (device_given) throw ArgumentError(flag, "give --device or --devices, not both");
  try {
    t.devices = DeviceList::parse(o.devices);
  } catch (const std::invalid_argument& e) {
    throw ArgumentError(flag, e.what());
  }
  if (no_isolation && (t.devices->all || t.devices->ordinals.size() > 1))
    throw ArgumentError(flag + " --no-isolation",
                        "several GPUs need a worker process each; in this process candidates run on one GPU "
                        "(--device N)");
  t.device = t.devices->first();
}

} // namespace memtune::cli
