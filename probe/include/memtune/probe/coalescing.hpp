#pragma once
// The global-coalescing probe's access (probe/device/probes.cu,
// probe_offset / probe_stride): thread i does a[j] += 1 on a float array, with
// j = i + s (offset) or j = i * s (stride). The runner verifies against it and
// the model predicts from it; change both together with probes.cu.
//
//   coalescing_element(Coalescing::stride, 32, 5) == 160
//   predict_coalescing_time(Coalescing::offset, 1, n, h100) > predict_coalescing_time(Coalescing::offset, 0, n, h100)
#include <memtune/model/global_access.hpp>
#include <memtune/model/target.hpp>

#include <cstdint>

namespace memtune::probe {

enum class Coalescing { offset, stride };

inline constexpr int coalescing_block_threads = 256; // threads per block of both kernels
inline constexpr int coalescing_max_offset = 32;     // the offset curve: 0..32 elements
inline constexpr int coalescing_max_stride = 32;     // the stride curve: 1..32 elements

// The element of `a` thread `i` reads and writes, for parameter `s`
// (offset 0..32, stride 1..32).
[[nodiscard]] std::uint64_t coalescing_element(Coalescing probe, int s, std::uint64_t i);

// The load of warp `warp` (32 consecutive threads from thread 32 * warp):
// 4-byte lanes at coalescing_element(...) * 4, analysed by the model's
// coalescing rules (sectors, lines, efficiency). The store is the same access.
[[nodiscard]] model::GlobalAccess coalescing_warp_access(Coalescing probe, int s, std::uint64_t warp);

// [s] The model's time for one launch on n elements, at the target's DRAM
// bandwidth: every warp reads each distinct chunk of the L2 fetch granularity
// it touches (Target::Measured::l2_fetch_bytes, which memtune probe reads from
// the driver; a 32-byte sector when unknown) and writes back each sector it
// dirties (averaged over a block's warps). A lower bound in the spirit of the
// time model's DRAM bound: it ignores that a neighbouring warp may share a
// chunk through L2, and DRAM page effects.
[[nodiscard]] double predict_coalescing_time(Coalescing probe, int s, std::uint64_t n, const Target& target);

} // namespace memtune::probe
