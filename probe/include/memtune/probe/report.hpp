#pragma once
// The results of `memtune probe` and their printers: JSON (everything), CSV
// (one file per probe, for plotting), recordings (each probe space in the
// format of `memtune filter --record`, for replayed search) and terminal tables.
#include <memtune/measure/device.hpp>
#include <memtune/measure/measure.hpp>
#include <memtune/output/document.hpp>
#include <memtune/probe/bank_probe.hpp>
#include <memtune/search/space.hpp>
#include <memtune/model/target.hpp>
#include <memtune/output/tuning_result.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::probe {

struct CopyProbe {
  std::size_t bytes = 0;      // [bytes] copied per launch
  CopyCeiling memcpy;         // cuMemcpyDtoDAsync, as the tuner measures it
  Timing float4_timing;       // probe_copy_float4
  double float4_gbs = 0;      // [GB/s] 2 * bytes / median
  bool float4_verified = false;
};

// One point of the offset or stride curve.
struct CurvePoint {
  int parameter = 0;          // the offset (0..32) or stride (1..32)
  std::optional<Timing> timing; // absent when launched untimed (--launches N)
  double gbs = 0;             // [GB/s] bytes requested (2 * n * 4) / median
  bool verified = false;
};

struct CoalescingProbe {
  std::uint64_t n = 0;        // elements touched per launch (the array holds n * 33 floats)
  std::vector<CurvePoint> offset;
  std::vector<CurvePoint> stride;
};

struct BankResult {
  BankVariant variant;
  std::int64_t reps = 0;      // loads per thread in the timed loop
  int blocks = 0;             // grid size
  int launches = 0;           // kernel launches made (timed mode: warm-up + samples)
  BankSimulation per_block;   // the model's counts for one block
  std::optional<Timing> timing;
  bool verified = false;
  [[nodiscard]] std::int64_t simulated_load_conflicts() const { return per_block.load_conflicts * blocks; }   // per launch
  [[nodiscard]] std::int64_t simulated_store_conflicts() const { return per_block.store_conflicts * blocks; } // per launch
  // [ns] per shared load instruction of one warp, time / (blocks * 8 warps * reps).
  [[nodiscard]] double ns_per_warp_load() const;
};

struct LatencyResult {
  std::string level;          // "dram" or "l2"
  std::size_t bytes = 0;      // [bytes] footprint of the chase
  std::size_t stride_bytes = 0;
  std::int64_t steps = 0;     // timed dependent loads per launch
  int launches = 0;
  double ns_per_load = 0;     // [ns] from the kernel's global timer, mean over launches
  bool verified = false;
};

// L2 read bandwidth: every SM reads an L2-resident buffer (ld.global.cg) with
// a full-occupancy grid; never flushed before a sample (the point is a warm L2).
struct L2BandwidthResult {
  std::size_t bytes = 0;        // [bytes] footprint, read `passes` times per launch
  int passes = 0;
  int blocks = 0;               // grid size: SMs x blocks that fill an SM
  int threads = 0;              // per block (256)
  int launches = 0;             // kernel launches made (timed mode: warm-up + samples)
  std::optional<Timing> timing; // absent when launched untimed (--launches N)
  double gbs = 0;               // [GB/s, 1e9 bytes/s] passes * bytes / median
  bool verified = false;        // every thread's sum equals the CPU's
};

// One grid size of the block launch probe.
struct LaunchPoint {
  std::int64_t blocks = 0;
  std::optional<Timing> timing;
  double ns_per_block = 0;      // [ns] median / blocks (launch overhead included)
};

// Block launch rate: empty 32-thread blocks, grids of increasing size.
struct LaunchRateProbe {
  int threads = 32;             // per block
  std::vector<LaunchPoint> points; // increasing block counts
  // [ns] per block, GPU-wide, once launches are large: the time difference
  // between the two largest grids over their block difference; 0 = untimed.
  double block_launch_ns = 0;
  bool verified = false;        // timed launches stored nothing; a flag = 12345 launch stored once per block
};

// [ns] (t_b - t_a) / (blocks_b - blocks_a) of the two largest timed grids;
// 0 with fewer than two timed points or a non-positive difference.
double fitted_block_launch_ns(const std::vector<LaunchPoint>& points);

struct ProbeReport {
  DeviceFingerprint device;
  Target target;              // the local GPU as the driver describes it
  std::string date;           // UTC, "2026-11-22"
  bool cold = true;           // L2 flushed before each timed sample
  std::optional<CopyProbe> copy;
  std::optional<CoalescingProbe> coalescing;
  std::vector<BankResult> banks;
  std::vector<LatencyResult> latency;
  std::optional<L2BandwidthResult> l2_read;
  std::optional<LaunchRateProbe> launch;
  // [bytes] the context's CU_LIMIT_MAX_L2_FETCH_GRANULARITY (cuCtxGetLimit):
  // the most an L2 miss fetches from DRAM; 0 = not read.
  std::size_t l2_fetch_bytes = 0;
  // True when every probe with an output verified it.
  [[nodiscard]] bool all_verified() const;
};

// Probe spaces (for recordings): axis "offset" 0..32, axis "stride" 1..32,
// axes "width" {4, 8} x "stride" {1, 2, 16, 32, 33} x "padded" {0, 1} with
// padded == (stride == 33).
search::Space offset_space();
search::Space stride_space();
search::Space bank_space();
// The configuration of a bank variant in bank_space().
search::Config bank_config(const BankVariant& v);

nlohmann::json to_json(const ProbeReport& r);
// Recordings, one per space that was probed: file name -> document
// ("probe-offset.json", "probe-stride.json", "probe-bank.json").
std::vector<std::pair<std::string, nlohmann::json>> recordings(const ProbeReport& r);
// CSV text per probe: file name -> contents ("copy.csv", "offset.csv", "stride.csv", "bank.csv", "latency.csv",
// "l2_read.csv", "launch.csv").
std::vector<std::pair<std::string, std::string>> csv_files(const ProbeReport& r);
// Writes csv_files() into dir (created if missing). Throws std::runtime_error.
void write_csv(const ProbeReport& r, const std::filesystem::path& dir);
// The report as the printers' result model (output/document.hpp): one table
// per probe for people and CSV, and to_json(r) as its data.
output::Document to_document(const ProbeReport& r);
// One table per probe (the table printer of to_document).
void print_tables(std::ostream& out, const ProbeReport& r);

} // namespace memtune::probe
