// merge_profile_stores: the union of stores' entries; identical duplicates
// once, two different picks for one key refused naming both files.
#include <memtune/profile/store_merge.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

ProfileEntry entry(std::int64_t n, int block, const std::string& gpu = "NVIDIA H100 80GB HBM3", int sms = 132) {
  ProfileEntry e;
  e.device = {gpu, 9, 0, sms};
  e.template_name = "filter";
  e.problem = {{"n", n}, {"taps", 21}};
  e.config = {{"block_size", block}, {"packing", 1}};
  e.time_s = 5e-5;
  e.saved_at = "2026-11-01T00:00:00Z";
  return e;
}

} // namespace

TEST_CASE("merge_profile_stores: the union, identical duplicates once, other GPU models apart") {
  ProfileEntry later = entry(1 << 20, 256);
  later.saved_at = "2026-11-02T00:00:00Z"; // saved again: the same pick
  const MergedStore m = merge_profile_stores({{"a.json", {entry(1 << 20, 256), entry(1 << 24, 128)}},
                                              {"b.json", {later, entry(1 << 20, 512, "NVIDIA H100 PCIe", 114)}}});
  REQUIRE(m.entries.size() == 3);
  CHECK(m.identical_duplicates == 1);
  CHECK(m.entries[0].saved_at == "2026-11-01T00:00:00Z");
  CHECK(m.entries[2].device.name == "NVIDIA H100 PCIe");
  CHECK(m.entries[2].config.at("block_size") == 512);
}

TEST_CASE("merge_profile_stores: two picks for one key are refused, naming both files and picks") {
  ProfileEntry slower = entry(1 << 20, 512);
  slower.time_s = 6e-5;
  try {
    (void)merge_profile_stores({{"a.json", {entry(1 << 24, 64), entry(1 << 20, 256)}}, {"b.json", {slower}}});
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string why = e.what();
    CHECK(e.file() == "b.json");
    CHECK(e.field() == "entries[0]");
    CHECK(why.find("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs) filter n=1048576 taps=21") != std::string::npos);
    CHECK(why.find("block_size=512 packing=1 (measured, 60 us) here") != std::string::npos);
    CHECK(why.find("block_size=256 packing=1 (measured, 50 us) in a.json") != std::string::npos);
    CHECK(why.find("memtune profile merge") != std::string::npos);
  }
}
