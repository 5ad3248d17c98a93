#include <memtune/search/constraint_census.hpp>

#include <doctest/doctest.h>

using namespace memtune::search;

namespace {

// 4 x 5 = 20 configurations; w % bx == 0 leaves bx in {1, 2, 4} (w = 12), and
// h % by == 0 with h = 7 leaves by = 1 only.
Space tiles() {
  Space s;
  s.add(Axis::ordinal("bx", {1, 2, 4, 8}));
  s.add(Axis::ordinal("by", {1, 2, 4, 8, 16}));
  s.require((Expr(12) % axis("bx") == 0).because("whole tiles in x"));
  s.require((Expr(7) % axis("by") == 0).because("whole tiles in y"));
  return s;
}

} // namespace

TEST_CASE("the census counts, for each constraint, the configurations it is the first to reject") {
  const ConstraintCensus c = constraint_census(tiles());
  CHECK(c.exact);
  CHECK(c.examined == 20);
  CHECK(c.valid == 3); // bx 1, 2, 4 with by 1
  REQUIRE(c.rejections.size() == 2);
  // bx = 8: 5 rejected in x; bx in {1, 2, 4} with by > 1: 12 rejected in y. Most first.
  CHECK(c.rejections[0].rule.starts_with("whole tiles in y ("));
  CHECK(c.rejections[0].count == 12);
  CHECK(c.rejections[1].rule.starts_with("whole tiles in x ("));
  CHECK(c.rejections[1].count == 5);
  CHECK(c.describe().starts_with("of 20 configurations (each counted under the first rule it fails): 12 fail "
                                 "whole tiles in y ("));
  CHECK(c.describe().ends_with("; 3 valid"));
  CHECK(c.describe(1).find(", and 1 more rule") != std::string::npos);
}

TEST_CASE("above the walk limit the census samples, says so, and still adds up") {
  const ConstraintCensus c = constraint_census(tiles(), /*exact_limit=*/4);
  CHECK_FALSE(c.exact);
  CHECK(c.examined == Space::kSamples);
  std::size_t rejected = 0;
  for (const auto& r : c.rejections) rejected += r.count;
  CHECK(rejected + c.valid == Space::kSamples);
  CHECK(c.describe().starts_with("of 65536 sampled configurations (each counted"));
  // Evenly spread: about 5 of 20 fail in x, 12 in y.
  CHECK(c.rejections[0].count == doctest::Approx(Space::kSamples * 12.0 / 20).epsilon(0.02));
}

TEST_CASE("the census names configurations outside the shard, and a space with none rejected") {
  Space s = tiles();
  s.restrict_to(Shard::parse("2/2"));
  const ConstraintCensus c = constraint_census(s);
  CHECK(c.valid + c.rejections.back().count == 3);
  CHECK(c.describe().find("outside shard 2/2") != std::string::npos);

  Space free;
  free.add(Axis::ordinal("a", {1, 2}));
  CHECK(constraint_census(free).describe() == "of 2 configurations, none is rejected by a constraint");
}
