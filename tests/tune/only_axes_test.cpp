#include "tune/src/only_axes.hpp"

#include <memtune/io/errors.hpp>

#include <doctest/doctest.h>

using namespace memtune;
using namespace memtune::search;

namespace {

Space space() {
  Space s;
  s.add(Axis::ordinal("block_size", {64, 128, 256, 1024}));
  s.add(Axis::ordinal("items", {1, 2, 4}));
  s.add(Axis::categorical("layout", {"aos", "soa"}));
  s.require((axis("block_size") * axis("items") <= Expr(1024)).because("the tile fits in shared memory"));
  s.require(Constraint::implies(axis("layout") == Expr(0), axis("items") <= Expr(2)).because("aos holds 2 items"));
  s.note_pruned({"bank_mode", "sm_90 has fixed 4-byte shared-memory banks"});
  return s;
}

std::string error_of(const std::map<std::string, std::string>& only) {
  try {
    (void)only_constraints(space(), only);
  } catch (const ArgumentError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("--only gives one constraint per axis that keeps exactly its value") {
  const auto fixed = only_constraints(space(), {{"block_size", "256"}, {"layout", "soa"}});
  REQUIRE(fixed.size() == 2);
  CHECK(fixed[0].holds(Config{{"block_size", 256}, {"items", 1}, {"layout", 1}}));
  CHECK_FALSE(fixed[0].holds(Config{{"block_size", 128}, {"items", 1}, {"layout", 1}}));
  CHECK(fixed[0].reason() == "fixed by --only block_size=256");
  CHECK(only_constraints(space(), {}).empty());
}

TEST_CASE("an axis the target pruned says so and why") {
  CHECK(error_of({{"bank_mode", "4"}}) == "--only bank_mode=4: axis 'bank_mode' was pruned for this target: sm_90 has "
                                         "fixed 4-byte shared-memory banks");
  CHECK(error_of({{"blocks", "4"}}) == "--only blocks=4: no axis 'blocks' (axes: block_size, items, layout)");
  CHECK(error_of({{"items", "3"}}) == "--only items=3: not a value of items (values: 1, 2, 4)");
}

TEST_CASE("values that the constraints rule out name the constraints") {
  // 1024 x 2 > 1024 on every layout: the tile constraint alone rules them out.
  CHECK(error_of({{"block_size", "1024"}, {"items", "2"}}) ==
        "--only block_size=1024,items=2: no configuration with these values satisfies the space's constraints: the "
        "tile fits in shared memory: (block_size * items) <= 1024");
  // items=4 with aos: each constraint fails somewhere, together everywhere.
  const std::string both = error_of({{"block_size", "1024"}, {"items", "4"}, {"layout", "aos"}});
  CHECK(both.find("the tile fits in shared memory") != std::string::npos);
  CHECK(error_of({{"block_size", "256"}, {"items", "4"}}) == "no error"); // soa works
}
