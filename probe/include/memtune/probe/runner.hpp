#pragma once
// Runs the probes on the local GPU (needs a driver and a device).
//
//   ProbeOptions o;  o.only = {"bank:f32-stride32"};  o.launches = 1;
//   ProbeReport r = run_probes(o, std::cerr);   // one launch of one kernel: for ncu
#include <memtune/measure/measure.hpp>
#include <memtune/probe/report.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::probe {

struct ProbeOptions {
  int device = 0;
  // Selectors; empty = everything. "copy", "coalescing" (= "offset" + "stride"),
  // "offset", "stride", "offset:7", "stride:32", "bank", "bank:f32-stride32",
  // "latency", "latency:dram", "latency:l2", "l2" (L2 read bandwidth), "launch"
  // (block launch rate).
  std::vector<std::string> only;
  // 0: timed (Timer, cold unless measure.flush_l2 is false). N > 0: exactly N
  // untimed launches of every selected kernel and nothing else on the GPU
  // besides uploads (for ncu); the copy probe is then skipped.
  int launches = 0;
  MeasureOptions measure;
  std::uint64_t coalescing_n = 0;    // elements; 0: 32 Mi, reduced to fit a quarter of free memory
  std::int64_t bank_reps = 1024;     // shared loads per thread, 1..2^20
  int bank_blocks = 0;               // 0: 32 per SM
  std::size_t copy_bytes = 0;        // 0: max(256 MiB, 4 x L2)
  std::size_t dram_chase_bytes = 0;  // 0: max(256 MiB, 8 x L2)
  std::size_t l2_chase_bytes = 0;    // 0: L2 / 4
  std::size_t chase_stride = 128;    // [bytes] >= 128: one slot per line
  std::int64_t chase_steps = 100000; // timed loads per launch (capped below the slot count for DRAM)
  std::size_t l2_read_bytes = 0;     // 0: L2 / 4 (L2-resident)
  int l2_read_passes = 0;            // reads of the buffer per launch; 0: enough for >= 1 GiB per launch
  std::int64_t launch_blocks = std::int64_t{1} << 22; // the largest grid; also / 4, / 16, / 64; 64..2^31-1
  std::uint64_t seed = 1;
  std::optional<std::filesystem::path> cache_folder; // none: no compile cache
};

// Throws std::invalid_argument naming the option that is out of range (or a
// selector that names nothing). run_probes() calls it first.
void check_options(const ProbeOptions& options);
// Throws std::invalid_argument for a selector that names nothing.
void check_selectors(const std::vector<std::string>& only);
// Whether `probe` ("offset") with item `item` ("7", or "" for the whole probe) is selected.
bool selected(const std::vector<std::string>& only, const std::string& probe, const std::string& item = {});

// Throws cuda::DriverUnavailable without a GPU, cuda::DriverError on a failed call.
// Progress lines go to `progress` (may be a null stream).
ProbeReport run_probes(const ProbeOptions& options, std::ostream& progress);

// The embedded device source (probe/device/probes.cu).
const char* probe_source();

} // namespace memtune::probe
