#pragma once
// --from (cross-GPU transfer, transfer.hpp) and --nvrtc-kepler (an NVRTC
// 11.8 for sm_35/sm_37, nvrtc_library.hpp) on the tuning subcommands.
#include <string>

namespace CLI {
class App;
}

namespace memtune {
struct TuneOptions;
}

namespace memtune::cli {

struct TransferOptions {
  std::string from;         // a measured recording or profile store of another GPU
  std::string nvrtc_kepler; // an NVRTC 11.8 library or its folder
};

// Adds --from and --nvrtc-kepler to a tuning subcommand.
void add_transfer_options(CLI::App& command, TransferOptions& options);

// Puts them into the run's options. Throws ArgumentError for --from
// on a measured run that is not a bayes search (there is nothing to transfer
// to: the local GPU is measured).
void apply_transfer_options(TuneOptions& options, const TransferOptions& given, bool modeled);

} // namespace memtune::cli
