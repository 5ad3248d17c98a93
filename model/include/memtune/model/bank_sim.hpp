#pragma once
// Shared-memory bank-conflict simulator for one warp-level instruction.
//
//   BankResult r = simulate_banks(WarpAccess::strided(0, 2 * 4, 4), BankConfig::fixed_4byte());
//   r.wavefronts == 2; r.conflicts() == 1; r.ways == 2     // stride-2 floats: 2-way
//
// Rules (CUDA C++ Programming Guide, "Shared Memory" under each compute
// capability; docs/model.md gives the details and the uncertain corners):
//  * The warp is served in phases. A phase covers as many lanes as fit one
//    bank-row of bytes: 128 B on cc >= 5 (32 banks x 4 B), 256 B on Kepler
//    (32 banks x 8 B). So cc >= 5: 4-byte accesses = 1 phase of 32 lanes,
//    8-byte = 2 half-warps, 16-byte = 4 quarter-warps; Kepler: 4- and 8-byte
//    accesses = 1 phase, 16-byte = 2 half-warps.
//  * Within a phase, each bank serves one "row" per wavefront. Lanes touching
//    the same row of a bank share it (broadcast/multicast); distinct rows in one
//    bank serialise. Phase wavefronts = max over banks of distinct rows (at
//    least 1 when any lane is active).
//      4-byte banks (cc >= 5):  bank = word % 32, row = word (a 32-bit word)
//      Kepler 8-byte mode:      bank = (addr / 8) % 32, row = addr / 8 (a 64-bit word)
//      Kepler 4-byte mode:      bank = word % 32, row = word / 64 (the guide:
//        no conflict for words i and i + 32 in one 64-word aligned segment)
//  * wavefronts = sum over phases; ideal = number of phases with an active
//    lane; conflicts() = wavefronts - ideal. That difference is what Nsight
//    Compute reports as l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
//    (or _op_st) on sm_70..sm_90: it counts wavefronts beyond the ideal ones, so
//    a conflict-free float2 warp load is 2 wavefronts and 0 conflicts.
#include <memtune/model/warp_access.hpp>
#include <memtune/model/target.hpp>

namespace memtune::model {

struct BankConfig {
  int bank_count = 32;
  int bank_width_bytes = 4;       // 4, or 8 for Kepler's 8-byte mode
  bool kepler_4byte_rule = false; // Kepler in 4-byte mode: 64-bit banks addressed as 32-bit words

  static BankConfig fixed_4byte() { return {32, 4, false}; }  // cc >= 5
  static BankConfig kepler_4byte() { return {32, 4, true}; }  // cudaSharedMemBankSizeFourByte
  static BankConfig kepler_8byte() { return {32, 8, false}; } // cudaSharedMemBankSizeEightByte
  // The configuration of `t` in the given bank mode. Throws std::invalid_argument
  // when the target does not offer that width.
  static BankConfig for_target(const Target& t, int bank_width_bytes = 4);

  // Kepler's banks are physically 8 bytes wide in both modes.
  [[nodiscard]] bool is_kepler() const { return bank_width_bytes == 8 || kepler_4byte_rule; }
  [[nodiscard]] int row_bytes() const { return bank_count * (is_kepler() ? 8 : 4); } // [bytes] served per wavefront
};

struct BankResult {
  int wavefronts = 0;       // shared-memory wavefronts (cycles of the shared pipe) for the instruction
  int ideal_wavefronts = 0; // wavefronts without any conflict
  int ways = 0;             // worst rows-per-bank in any phase: 1 = conflict-free, 32 = fully serialised
  int phases = 0;           // phases the warp was split into (active or not)

  [[nodiscard]] int conflicts() const { return wavefronts - ideal_wavefronts; }
};

// Throws std::invalid_argument for a malformed access (see check_warp_access)
// or configuration (bank count other than 32, width other than 4 or 8).
[[nodiscard]] BankResult simulate_banks(const WarpAccess& access, const BankConfig& config);

} // namespace memtune::model
