#pragma once
// A Target describes one GPU: enough to compile for it, bound its occupancy,
// simulate its shared-memory banks and model its memory system. Targets come
// from configs/targets/<name>.json (with the public source of every figure)
// or from the local device through the driver.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

struct Target {
  std::string name;         // key used on the command line: "k20", "h100-sxm"
  std::string display_name; // "Tesla K20c"
  // Added for the catalogue: other names a user may type ("h100" -> h100-sxm);
  // matched case-insensitively, like name and display_name.
  std::vector<std::string> aliases;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;

  // Per SM.
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;                 // 32-bit registers
  std::size_t smem_per_sm = 0;         // [bytes] the largest carve-out
  std::vector<int> smem_carveouts_kb;  // shared-memory sizes the SM can be configured to [KiB]

  // Per block / thread.
  int max_threads_per_block = 0;
  int max_regs_per_block = 0;
  int max_regs_per_thread = 0;
  std::size_t smem_per_block = 0;          // [bytes] without opt-in
  std::size_t smem_per_block_optin = 0;    // [bytes] with cuFuncSetAttribute opt-in
  std::size_t reserved_smem_per_block = 0; // [bytes] the driver reserves per block (1 KiB since sm_80)

  // Shared-memory banks.
  int bank_count = 32;
  std::vector<int> bank_widths_bytes{4}; // {4} on most GPUs; {4, 8} on Kepler (selectable mode)

  // Memory system.
  std::size_t l1_bytes = 0;      // [bytes] per SM, unified L1/shared capacity
  std::size_t l2_bytes = 0;      // [bytes]
  // Added to refuse problems that cannot fit: device memory (0: unknown).
  std::size_t memory_bytes = 0;  // [bytes] nominal (catalogue) or cuDeviceTotalMem (local)
  double dram_bandwidth_gbs = 0; // [GB/s, 1e9 bytes/s] theoretical peak
  double memory_latency_ns = 0;  // [ns] DRAM load latency seen by an SM
  double sm_clock_mhz = 0;       // [MHz] boost clock
  double mem_clock_mhz = 0;      // [MHz]
  // Added for the time model. 0 means no public figure: the L2 bound is then
  // reported as not modelled rather than guessed.
  // Theoretical (bytes per clock x clock) unless the figure was measured on
  // this very GPU; the time model scales a theoretical figure by
  // TimeModelParams::l2_efficiency.
  double l2_bandwidth_gbs = 0;   // [GB/s, 1e9 bytes/s] L2 -> SM read bandwidth, whole GPU
  // Added for the time model's issue bound: warp schedulers per SM, each
  // issuing up to one warp instruction per clock (Kepler's dual issue ignored).
  int schedulers_per_sm = 4;
  // For Kepler and for models that carry across GPU generations: how an SM's
  // caches and pipes treat what the model replays.
  // Instructions each scheduler may dispatch per clock for one warp: 2 on
  // Kepler, Maxwell and Pascal (two dispatch units, dual issue), 1 since Volta.
  int dispatch_per_scheduler = 1;
  // FP32 lanes per SM (192 on Kepler, 64 on GP100/GV100/GA100, 128 on
  // Maxwell, GA10x, Ada, Hopper): FP32 warp instructions per SM per clock = lanes / 32.
  int fp32_lanes_per_sm = 128;
  // Whether a plain global load (ld.ca) allocates in L1: no on Kepler (L2
  // only, 32-byte transactions), Maxwell and GP10x except GP100; yes on GP100
  // and since Volta.
  bool l1_caches_global_loads = true;
  // [bytes] per SM of the read-only data cache that __ldg (ld.global.nc) goes
  // through when it is separate from L1 (Kepler GK110: 48 KiB); 0 = __ldg is
  // cached in the unified L1/texture cache like any load (Maxwell on).
  std::size_t read_only_cache_bytes = 0;
  // 128-byte lines per warp whose consecutive global stores L1 merges into one
  // L2 write request (store_combining.hpp): 4, measured with ncu on an H100
  // and taken for every GPU since Volta; 0 where L1 handles no global stores
  // (Kepler to Pascal write through to L2 without allocating).
  int l1_write_combining_lines = 4;

  // Added for `memtune probe`: figures measured on this very GPU by the probes
  // (optional in target files, as "measured": {...}; 0 = not measured). The
  // catalogue's public figures stay as they are; these sit beside them.
  struct Measured {
    double copy_gbs = 0;         // [GB/s, 1e9 bytes/s] device-to-device copy, bytes read + written, L2 flushed
    double float4_copy_gbs = 0;  // [GB/s] the probe's float4 copy kernel, same protocol
    double dram_latency_ns = 0;  // [ns] dependent load, pointer chase over a buffer larger than L2
    double l2_latency_ns = 0;    // [ns] dependent load, pointer chase over an L2-resident buffer
    double l2_read_gbs = 0;      // [GB/s] all SMs reading an L2-resident buffer (L1 bypassed); 0 = not measured
    double block_launch_ns = 0;  // [ns] per block, GPU-wide, launching many empty blocks; 0 = not measured
    double l2_fetch_bytes = 0;   // [bytes] L2 fetch granularity on a miss (cuCtxGetLimit); 0 = not read (a sector)
  };
  std::optional<Measured> measured;
  // Public source of each figure, by field name ("dram_bandwidth_gbs": "URL ...").
  std::map<std::string, std::string> sources;
  // Where the description came from: "configs/targets/k20.json" or "driver".
  std::string origin;
  // A GPU read from the driver whose catalogue has no entry of its own: where
  // the figures the driver does not report came from instead (another
  // entry of its architecture, or stated assumptions), said with each run.
  // Empty for catalogue targets and GPUs the catalogue knows.
  std::string figures_note;

  [[nodiscard]] int compute_capability() const { return cc_major * 10 + cc_minor; } // 90 for sm_90
  [[nodiscard]] std::string arch() const { return "sm_" + std::to_string(compute_capability()); }
  [[nodiscard]] bool has_bank_mode_choice() const { return bank_widths_bytes.size() > 1; }
};

} // namespace memtune
