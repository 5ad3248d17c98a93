#include <memtune/model/bank_patterns.hpp>
#include <memtune/model/bank_sim.hpp>
#include <memtune/model/target_catalog.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;
using namespace memtune::model;

namespace {

const BankConfig fixed = BankConfig::fixed_4byte();
const BankConfig kep4 = BankConfig::kepler_4byte();
const BankConfig kep8 = BankConfig::kepler_8byte();

int wavefronts(const WarpAccess& a, const BankConfig& c) { return simulate_banks(a, c).wavefronts; }

} // namespace

TEST_CASE("4-byte banks (cc >= 5): 32-bit accesses") {
  SUBCASE("linear is conflict-free") {
    const BankResult r = simulate_banks(linear(0, 4), fixed);
    CHECK(r.wavefronts == 1);
    CHECK(r.ideal_wavefronts == 1);
    CHECK(r.conflicts() == 0);
    CHECK(r.ways == 1);
  }
  SUBCASE("stride 2 words: 2-way") {
    const BankResult r = simulate_banks(strided_elems(0, 2, 4), fixed);
    CHECK(r.wavefronts == 2);
    CHECK(r.conflicts() == 1);
    CHECK(r.ways == 2);
  }
  SUBCASE("stride 16 words: 16-way") { CHECK(simulate_banks(strided_elems(0, 16, 4), fixed).ways == 16); }
  SUBCASE("stride 32 words: 32-way, fully serialised") {
    const BankResult r = simulate_banks(strided_elems(0, 32, 4), fixed);
    CHECK(r.wavefronts == 32);
    CHECK(r.conflicts() == 31);
  }
  SUBCASE("padded stride 33 is conflict-free") { CHECK(wavefronts(strided_elems(0, 33, 4), fixed) == 1); }
  SUBCASE("odd stride 3 is conflict-free") { CHECK(wavefronts(strided_elems(0, 3, 4), fixed) == 1); }
  SUBCASE("tile column: pitch 32 conflicts 32-way, pitch 33 not at all") {
    CHECK(wavefronts(tile_column(0, 5, 0, 32, 4), fixed) == 32);
    CHECK(wavefronts(tile_column(0, 5, 0, 33, 4), fixed) == 1);
    CHECK(wavefronts(tile_row(0, 7, 0, 33, 4), fixed) == 1);
  }
  SUBCASE("broadcast: every lane reads one word") {
    const BankResult r = simulate_banks(broadcast(100 * 4, 4), fixed);
    CHECK(r.wavefronts == 1);
    CHECK(r.ways == 1);
  }
  SUBCASE("multicast of 4 words in one bank: 4-way") {
    const auto a = WarpAccess::from_function([](int lane) { return std::optional<std::uint64_t>((lane % 4) * 128u); }, 4);
    CHECK(wavefronts(a, fixed) == 4);
  }
  SUBCASE("inactive lanes do not conflict") {
    CHECK(wavefronts(strided_elems(0, 32, 4).masked(0xFFu), fixed) == 8);
    const BankResult none = simulate_banks(linear(0, 4).masked(0), fixed);
    CHECK(none.wavefronts == 0);
    CHECK(none.ideal_wavefronts == 0);
  }
  SUBCASE("stores follow the same rules") {
    CHECK(wavefronts(strided_elems(0, 2, 4, AccessKind::store), fixed) == 2);
  }
}

TEST_CASE("4-byte banks (cc >= 5): 64- and 128-bit accesses are served per half- and quarter-warp") {
  SUBCASE("float2 linear: 2 wavefronts, no conflict (what ncu reports on sm_90)") {
    const BankResult r = simulate_banks(linear(0, 8), fixed);
    CHECK(r.phases == 2);
    CHECK(r.wavefronts == 2);
    CHECK(r.ideal_wavefronts == 2);
    CHECK(r.conflicts() == 0);
  }
  SUBCASE("float2 stride 2: 2-way in each half-warp") {
    const BankResult r = simulate_banks(strided_elems(0, 2, 8), fixed);
    CHECK(r.wavefronts == 4);
    CHECK(r.conflicts() == 2);
    CHECK(r.ways == 2);
  }
  SUBCASE("float2 starting 8 bytes in: still conflict-free") { CHECK(wavefronts(linear(8, 8), fixed) == 2); }
  SUBCASE("float2 broadcast costs one wavefront per half-warp") { CHECK(wavefronts(broadcast(64, 8), fixed) == 2); }
  SUBCASE("only the first half-warp active: one phase") {
    const BankResult r = simulate_banks(linear(0, 8).masked(0xFFFFu), fixed);
    CHECK(r.wavefronts == 1);
    CHECK(r.ideal_wavefronts == 1);
  }
  SUBCASE("float4 linear: 4 wavefronts, no conflict") {
    const BankResult r = simulate_banks(linear(0, 16), fixed);
    CHECK(r.phases == 4);
    CHECK(r.wavefronts == 4);
    CHECK(r.conflicts() == 0);
  }
  SUBCASE("float4 stride 2: 2-way in each quarter-warp") {
    const BankResult r = simulate_banks(strided_elems(0, 2, 16), fixed);
    CHECK(r.wavefronts == 8);
    CHECK(r.conflicts() == 4);
  }
}

TEST_CASE("Kepler 8-byte mode: bank = (addr / 8) % 32") {
  CHECK(wavefronts(linear(0, 4), kep8) == 1);
  // Two floats of one 8-byte word never conflict, so stride 2 is free here
  // while it is 2-way on fixed 4-byte banks.
  CHECK(wavefronts(strided_elems(0, 2, 4), kep8) == 1);
  CHECK(simulate_banks(strided_elems(0, 32, 4), kep8).ways == 16);
  CHECK(wavefronts(strided_elems(0, 33, 4), kep8) == 1);
  // Stride 16 words = 8 eight-byte words: banks 0, 8, 16, 24, 8 rows each.
  CHECK(simulate_banks(strided_elems(0, 16, 4), kep8).ways == 8);
  // Odd words (the upper halves of 8-byte words) are as good as even ones.
  const auto odd = WarpAccess::from_function([](int lane) { return std::optional<std::uint64_t>((2u * lane + 1) * 4); }, 4);
  CHECK(wavefronts(odd, kep8) == 1);
  SUBCASE("float2: the whole warp in one 256-byte wavefront") {
    const BankResult r = simulate_banks(linear(0, 8), kep8);
    CHECK(r.phases == 1);
    CHECK(r.wavefronts == 1);
  }
  SUBCASE("float2 not aligned to the 256-byte bank row: still one wavefront") {
    CHECK(wavefronts(linear(8, 8), kep8) == 1);
  }
  SUBCASE("float2 stride 2: 2-way") { CHECK(simulate_banks(strided_elems(0, 2, 8), kep8).ways == 2); }
  SUBCASE("float4: one wavefront per half-warp") {
    const BankResult r = simulate_banks(linear(0, 16), kep8);
    CHECK(r.phases == 2);
    CHECK(r.wavefronts == 2);
    CHECK(r.conflicts() == 0);
  }
  CHECK(wavefronts(broadcast(12, 4), kep8) == 1);
}

TEST_CASE("Kepler 4-byte mode: conflicts only across 64-word segments") {
  CHECK(wavefronts(linear(0, 4), kep4) == 1);
  // Words i and i + 32 share a 64-bit bank row: stride 2 is free.
  CHECK(wavefronts(strided_elems(0, 2, 4), kep4) == 1);
  // Stride 32: 32 words in bank 0 over 16 segments -> 16-way, not 32.
  CHECK(simulate_banks(strided_elems(0, 32, 4), kep4).ways == 16);
  // Stride 16: bank 0 holds words 0, 32, ..., 480 -> 8 segments.
  CHECK(simulate_banks(strided_elems(0, 16, 4), kep4).ways == 8);
  CHECK(wavefronts(strided_elems(0, 33, 4), kep4) == 1);
  SUBCASE("float2 aligned to a 64-word segment: one wavefront") { CHECK(wavefronts(linear(0, 8), kep4) == 1); }
  SUBCASE("float2 starting 8 bytes into a segment spills into the next: 2-way") {
    // Words 2..65: banks 0 and 1 see words 32/64 and 33/65, in segments 0 and 1.
    const BankResult r = simulate_banks(linear(8, 8), kep4);
    CHECK(r.wavefronts == 2);
    CHECK(r.ways == 2);
  }
  SUBCASE("float4: one wavefront per half-warp") { CHECK(wavefronts(linear(0, 16), kep4) == 2); }
  CHECK(wavefronts(broadcast(12, 4), kep4) == 1);
}

TEST_CASE("misaligned or malformed accesses are rejected") {
  CHECK_THROWS_AS((void)simulate_banks(linear(4, 8), fixed), std::invalid_argument);  // float2 at a 4-byte offset
  CHECK_THROWS_AS((void)simulate_banks(linear(4, 8), kep8), std::invalid_argument);
  CHECK_THROWS_AS((void)simulate_banks(linear(8, 16), kep4), std::invalid_argument);
  CHECK_THROWS_AS((void)simulate_banks(linear(0, 3), fixed), std::invalid_argument);   // no 3-byte access
  CHECK(wavefronts(linear(0, 2), fixed) == 1); // 16-bit: a warp's 64 bytes in 16 banks
  CHECK(wavefronts(linear(0, 1), fixed) == 1); // bytes: 4 lanes share a bank's word (a broadcast)
  CHECK_THROWS_AS((void)simulate_banks(linear(0, 4), BankConfig{16, 4, false}), std::invalid_argument);
  CHECK_THROWS_AS((void)simulate_banks(linear(0, 4), BankConfig{32, 8, true}), std::invalid_argument);
}

TEST_CASE("bank configuration from a target") {
  const TargetCatalog c = TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  const BankConfig k20_4 = BankConfig::for_target(c.find("k20"), 4);
  CHECK(k20_4.kepler_4byte_rule);
  CHECK(k20_4.row_bytes() == 256);
  const BankConfig k20_8 = BankConfig::for_target(c.find("k20"), 8);
  CHECK(k20_8.bank_width_bytes == 8);
  CHECK_FALSE(k20_8.kepler_4byte_rule);
  const BankConfig h100 = BankConfig::for_target(c.find("h100"));
  CHECK_FALSE(h100.is_kepler());
  CHECK(h100.row_bytes() == 128);
  CHECK_THROWS_AS((void)BankConfig::for_target(c.find("h100"), 8), std::invalid_argument);
}
