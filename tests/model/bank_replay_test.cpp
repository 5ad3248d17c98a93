#include <memtune/model/bank_replay.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune::model;

namespace {

// The classic shared-memory transpose: a 32 x 32 float tile, 32 x 8 threads,
// each warp handles rows warp + 8 * j. Stores go along rows, loads down columns.
std::vector<SharedInstruction> transpose(std::int64_t pitch) {
  const auto at = [pitch](std::int64_t row, std::int64_t col) {
    return std::optional<std::uint64_t>(static_cast<std::uint64_t>((row * pitch + col) * 4));
  };
  return {
      {"store tile row", 4, AccessKind::store, 4,
       [at](int warp, int lane, std::int64_t j) { return at(warp + 8 * j, lane); }},
      {"load tile column", 4, AccessKind::load, 4,
       [at](int warp, int lane, std::int64_t j) { return at(lane, warp + 8 * j); }},
  };
}

} // namespace

TEST_CASE("transpose tile without padding: column loads are 32-way") {
  const BankReplay r = replay_block(transpose(32), 8, BankConfig::fixed_4byte());
  REQUIRE(r.per_instruction.size() == 2);
  CHECK(r.per_instruction[0].executions == 32);
  CHECK(r.per_instruction[0].wavefronts == 32);
  CHECK(r.per_instruction[0].conflicts() == 0);
  CHECK(r.per_instruction[1].wavefronts == 32 * 32);
  CHECK(r.per_instruction[1].worst_ways == 32);
  CHECK(r.total.wavefronts == 32 + 1024);
  CHECK(r.total.conflicts() == 1024 - 32);
}

TEST_CASE("transpose tile padded to 33 columns: conflict-free") {
  const BankReplay r = replay_block(transpose(33), 8, BankConfig::fixed_4byte());
  CHECK(r.total.wavefronts == 64);
  CHECK(r.total.conflicts() == 0);
  CHECK(r.total.worst_ways == 1);
}

TEST_CASE("Kepler 8-byte mode halves the unpadded transpose's column conflicts") {
  // Column of pitch 32: addresses 128 * lane -> 8-byte words 16 * lane -> banks 0 and 16.
  const BankReplay r = replay_block(transpose(32), 8, BankConfig::kepler_8byte());
  CHECK(r.per_instruction[1].worst_ways == 16);
  CHECK(r.per_instruction[1].wavefronts == 16 * 32);
}

TEST_CASE("warps with no active lane skip the instruction") {
  const SharedInstruction first_half_only{
      "guarded load", 4, AccessKind::load, 2, [](int warp, int lane, std::int64_t) -> std::optional<std::uint64_t> {
        if (warp >= 2) return std::nullopt;
        return static_cast<std::uint64_t>(lane * 4);
      }};
  const BankReplay r = replay_block({first_half_only}, 4, BankConfig::fixed_4byte());
  CHECK(r.total.executions == 4);
  CHECK(r.total.wavefronts == 4);
}

TEST_CASE("replay rejects malformed input") {
  CHECK_THROWS_AS((void)replay_block(transpose(33), 0, BankConfig::fixed_4byte()), std::invalid_argument);
  CHECK_THROWS_AS((void)replay_block({SharedInstruction{"no address", 4, AccessKind::load, 1, {}}}, 1,
                                     BankConfig::fixed_4byte()),
                  std::invalid_argument);
}

TEST_CASE("repeat counts a replayed iteration as that many executions") {
  std::vector<SharedInstruction> once = transpose(32);
  for (auto& ins : once) ins.repeat = 5;
  const BankReplay r = replay_block(once, 8, BankConfig::fixed_4byte());
  const BankReplay plain = replay_block(transpose(32), 8, BankConfig::fixed_4byte());
  CHECK(r.total.executions == 5 * plain.total.executions);
  CHECK(r.total.wavefronts == 5 * plain.total.wavefronts);
  CHECK(r.total.conflicts() == 5 * plain.total.conflicts());
  CHECK(r.total.worst_ways == plain.total.worst_ways);
  for (auto& ins : once) ins.repeat = 0; // a loop that never runs
  CHECK(replay_block(once, 8, BankConfig::fixed_4byte()).total.wavefronts == 0);
  once[0].repeat = -1;
  CHECK_THROWS_AS(replay_block(once, 8, BankConfig::fixed_4byte()), std::invalid_argument);
}
