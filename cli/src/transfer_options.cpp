#include "transfer_options.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/tune/tuner.hpp>

#include <CLI/CLI.hpp>

namespace memtune::cli {

void add_transfer_options(CLI::App& command, TransferOptions& options) {
  command
      .add_option("--from", options.from,
                  "a recording or profile store measured on another GPU: --target is predicted from its times, "
                  "scaled by the model's ratio between the GPUs (with --strategy bayes on this GPU: the prior mean)")
      ->check(CLI::ExistingFile);
  command.add_option("--nvrtc-kepler", options.nvrtc_kepler,
                     "an NVRTC 11.8 library or its folder, to compile sm_35/sm_37 targets (default: "
                     "$MEMTUNE_NVRTC_KEPLER, else a pip-installed nvidia-cuda-nvrtc-cu11)");
}

void apply_transfer_options(TuneOptions& options, const TransferOptions& given, bool modeled) {
  if (!given.nvrtc_kepler.empty()) options.nvrtc_kepler = given.nvrtc_kepler;
  if (given.from.empty()) return;
  if (!modeled && options.strategy != "bayes")
    throw ArgumentError("--from " + given.from, "predicts a GPU that is not here (--target NAME) or, with --strategy bayes, "
                                "is the search's prior mean on this one");
  options.transfer_from = given.from;
}

} // namespace memtune::cli
