#pragma once
// How many write requests a warp's global stores send from L1 to L2.
//
// L1 does not cache global stores, but it combines a warp's consecutive
// partial writes to the same 128-byte line into one request while the line
// is still pending. Measured with Nsight Compute on the H100
// (scripts/filter_ncu_memory.sh, docs/results.md): a filter thread
// storing 4 consecutive floats with 4 scalar stores (each store instruction
// touching the same 4 lines) sends 0.72 M requests for 64 MB, close to the
// 0.52 M of one float4 store; storing 8 floats with 4 float2 stores (8 lines
// per instruction) sends 1.80 M, close to one request per line per
// instruction (2.1 M). The rule that fits both: a 4-line combining window
// per warp, least recently used line out. A write combines only into
// sectors the pending request already holds: the transpose's 16-wide tiles
// write each line's two halves (two sectors each) in consecutive
// instructions and sent 0.92 M requests for 0.52 M lines on an H200 (ncu,
// 4096 x 4096), where merging the halves would give 0.52 M; this rule
// gives 1.05 M.
//
//   StoreCombiner c;
//   for (int q = 0; q < 4; ++q) c.store(WarpAccess::strided(4 * q, 16, 4, AccessKind::store));
//   c.requests() == 4;   // 4 lines, each written by 4 instructions: combined
//   c.store(WarpAccess::strided(4096, 32, 8, AccessKind::store));  // 8 new lines
//   c.store(WarpAccess::strided(4104, 32, 8, AccessKind::store));  // the same 8: the window held only 4
//   c.requests() == 20;
#include <memtune/model/warp_access.hpp>

#include <cstdint>
#include <vector>

namespace memtune::model {

// 128-byte lines one warp's write combining holds at once (see above), on
// the H100; Target::l1_write_combining_lines gives it per GPU.
inline constexpr int write_combining_lines = 4;

class StoreCombiner {
public:
  // window_lines 0: no combining (an L1 that does not handle global stores,
  // Kepler to Pascal): every line of every store instruction is a request.
  explicit StoreCombiner(int window_lines = write_combining_lines) : window_(window_lines) {}
  // Feeds one warp-level store instruction in program order and returns the
  // write requests it adds: one per line not already held. A load or an
  // access with no active lane adds none. Throws std::invalid_argument on a
  // malformed access (check_warp_access).
  std::int64_t store(const WarpAccess& access);
  [[nodiscard]] std::int64_t requests() const { return requests_; }

private:
  struct Held {
    std::uint64_t line;    // [128-byte lines]
    unsigned sectors = 0;  // bit s: sector s of the line written
  };
  int window_;
  std::vector<Held> held_; // least recently used first
  std::int64_t requests_ = 0;
};

} // namespace memtune::model
