// Kernel Tuner imports (`memtune import`, cli/src/kernel_tuner_format.hpp):
// any bytes import as a recording or give the importer's own error
// (std::invalid_argument naming the entry and the key, which the CLI reports
// with the file's name, exit 1). An imported recording is a valid recording,
// and exported back as a cache it imports again to the same trials.
#include "harness.hpp"

#include "kernel_tuner_format.hpp"

#include <cstdlib>
#include <stdexcept>

MEMTUNE_FUZZ_TEXT(text) {
  memtune::search::Recording r;
  try {
    r = memtune::cli::recording_from_kernel_tuner(text, {});
  } catch (const std::invalid_argument&) {
    return; // the importer's typed error; anything else escapes and is a finding
  }
  (void)memtune::search::Recording::from_json(r.to_json());
  const memtune::search::Recording back =
      memtune::cli::recording_from_kernel_tuner(memtune::cli::kernel_tuner_cache(r).dump(), {});
  if (back.trials.size() != r.trials.size()) std::abort();
}
