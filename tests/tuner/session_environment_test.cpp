// MEMTUNE_CONFIG and MEMTUNE_NO_TUNE (tuner/src/session_environment.hpp): a
// bad value is an InputError naming the variable, never a JSON exception.
#include "session_environment.hpp"

#include <memtune/io/errors.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

search::Space two_axes() {
  search::Space s;
  s.add(search::Axis::ordinal("block_size", {128, 256}));
  s.add(search::Axis::categorical("layout", {"aos", "soa"}));
  return s;
}

} // namespace

TEST_CASE("MEMTUNE_CONFIG: a configuration of the space, or an InputError naming the variable") {
  const search::Space space = two_axes();
  const search::Config c = pinned_config(R"({"block_size": 256, "layout": "soa"})", space);
  CHECK(c.at("block_size") == 256);
  CHECK_THROWS_WITH_AS((void)pinned_config("{\"block_size\": 256,", space),
                       doctest::Contains("$MEMTUNE_CONFIG:1"), InputError);
  CHECK_THROWS_WITH_AS((void)pinned_config(R"({"block_size": 100, "layout": "soa"})", space),
                       doctest::Contains("$MEMTUNE_CONFIG: 100 is not a value of axis 'block_size'"), InputError);
  CHECK_THROWS_WITH_AS((void)pinned_config(R"({"block_size": 128})", space),
                       doctest::Contains("$MEMTUNE_CONFIG: missing axis 'layout'"), InputError);
  CHECK_THROWS_WITH_AS((void)pinned_config(R"({"block_size": 128, "layout": "aos", "tile": 4})", space),
                       doctest::Contains("unknown axis 'tile'"), InputError);
  CHECK_THROWS_WITH_AS((void)pinned_config("[1, 2]", space), doctest::Contains("expected a JSON object"), InputError);
  CHECK_THROWS_AS((void)pinned_config("1e400", space), InputError);
}

TEST_CASE("MEMTUNE_NO_TUNE: 1 or 0, anything else named") {
  CHECK_FALSE(tuning_disabled(nullptr));
  CHECK_FALSE(tuning_disabled(""));
  CHECK_FALSE(tuning_disabled("0"));
  CHECK(tuning_disabled("1"));
  CHECK_THROWS_WITH_AS((void)tuning_disabled("yes"), "$MEMTUNE_NO_TUNE: 'yes': expected 1 (never tune) or 0 (tune when needed)",
                       InputError);
}
