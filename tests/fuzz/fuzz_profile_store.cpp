// Profile stores: any bytes as an existing store either list their entries or
// give a ProfileError, and saving into them never replaces a store that does
// not parse (the bytes on disk are compared after the failed save).
#include "harness.hpp"

#include <memtune/io/atomic_file.hpp>
#include <memtune/profile/profile_store.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {

std::filesystem::path store_file() {
  // tmpfs where there is one: every save fsyncs.
  const std::filesystem::path dir =
      std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  static const std::filesystem::path file = dir / ("memtune-fuzz-store-" + std::to_string(::getpid()) + ".json");
  return file;
}

memtune::ProfileEntry some_entry() {
  memtune::ProfileEntry e;
  e.device = {"NVIDIA H100 80GB HBM3", 9, 0, 132};
  e.template_name = "filter";
  e.problem = {{"n", 1 << 20}, {"taps", 21}};
  e.config = {{"block_size", 256}};
  e.time_s = 1e-5;
  return e;
}

} // namespace

MEMTUNE_FUZZ_TEXT(text) {
  const auto file = store_file();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
  }
  memtune::ProfileStore store(file);
  bool parses = true;
  try {
    (void)store.lookup({"NVIDIA H100 80GB HBM3", 9, 0, 132}, "filter", {{"n", 3 << 20}, {"taps", 21}}, {"n"});
  } catch (const memtune::ProfileError&) {
    parses = false;
  }
  try {
    store.save(some_entry());
  } catch (const memtune::ProfileError&) {
    std::ifstream in(file, std::ios::binary);
    const std::string after{std::istreambuf_iterator<char>(in), {}};
    if (after != text) std::abort(); // a store that does not parse was changed
    if (parses) std::abort();        // a store that reads must also save
    return;
  }
  if (store.entries().empty()) std::abort(); // the saved entry must be there
}
