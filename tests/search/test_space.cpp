#include "spaces.hpp"

#include <memtune/search/space.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace memtune::search;
using nlohmann::json;

TEST_CASE("axes validate their values and convert labels") {
  CHECK_THROWS_AS(Axis::ordinal("b", {}), std::invalid_argument);
  CHECK_THROWS_AS(Axis::ordinal("b", {64, 32}), std::invalid_argument);
  CHECK_THROWS_AS(Axis::ordinal("b", {32, 32}), std::invalid_argument);
  CHECK_THROWS_AS(Axis::categorical("l", {}), std::invalid_argument);
  const Axis l = Axis::categorical("layout", {"aos", "soa"});
  CHECK(l.values == std::vector<std::int64_t>{0, 1});
  CHECK(l.format(1) == "soa");
  CHECK(l.parse("aos") == 0);
  CHECK_FALSE(l.parse("aosoa").has_value());
  const Axis b = Axis::ordinal("block", {32, 64});
  CHECK(b.parse("64") == 64);
  CHECK_FALSE(b.parse("48").has_value());
  CHECK_FALSE(b.parse("64x").has_value());
  CHECK(b.index_of(64) == 1);
  CHECK_THROWS_AS((void)b.index_of(48), std::out_of_range);
}

TEST_CASE("a space refuses duplicate axes") {
  Space s;
  s.add(Axis::ordinal("a", {1}));
  CHECK_THROWS_AS(s.add(Axis::ordinal("a", {2})), std::invalid_argument);
  CHECK_THROWS_AS((void)s.axis("b"), std::out_of_range);
}

TEST_CASE("enumerate lists valid configs in grid order, first axis slowest") {
  Space s;
  s.add(Axis::ordinal("a", {1, 2}));
  s.add(Axis::ordinal("b", {10, 20, 30}));
  CHECK(s.cross_product_size() == 6);
  auto all = s.enumerate();
  REQUIRE(all.size() == 6);
  CHECK(all[0] == Config{{"a", 1}, {"b", 10}});
  CHECK(all[1] == Config{{"a", 1}, {"b", 20}});
  CHECK(all[3] == Config{{"a", 2}, {"b", 10}});
  CHECK(s.at_index(5) == Config{{"a", 2}, {"b", 30}});

  s.require((axis("a") * axis("b") <= 40).because("small enough"));
  all = s.enumerate();
  CHECK(all.size() == 5);
  CHECK(std::find(all.begin(), all.end(), Config{{"a", 2}, {"b", 30}}) == all.end());
  const auto why = s.violation(Config{{"a", 2}, {"b", 30}});
  REQUIRE(why.has_value());
  CHECK(why->find("small enough") != std::string::npos);
}

TEST_CASE("is_valid checks axes, values and constraints") {
  const Space s = memtune::search::testing::small_space();
  CHECK(s.is_valid(Config{{"block_size", 256}, {"items", 4}, {"layout", 1}}));
  CHECK_FALSE(s.is_valid(Config{{"block_size", 512}, {"items", 4}, {"layout", 1}})); // constraint
  CHECK_FALSE(s.is_valid(Config{{"block_size", 100}, {"items", 1}, {"layout", 1}})); // not on axis
  CHECK_FALSE(s.is_valid(Config{{"block_size", 64}, {"items", 1}}));                 // missing axis
  CHECK_FALSE(s.is_valid(Config{{"block_size", 64}, {"items", 1}, {"layout", 0}, {"x", 1}}));
  CHECK(s.enumerate().size() == 22);
}

TEST_CASE("configs round-trip through JSON with labels for categorical axes") {
  const Space s = memtune::search::testing::small_space();
  for (const Config& c : s.enumerate()) CHECK(s.config_from_json(s.config_to_json(c)) == c);
  const Config c{{"block_size", 128}, {"items", 2}, {"layout", 1}};
  CHECK(s.config_to_json(c) == json::parse(R"({"block_size": 128, "items": 2, "layout": "soa"})"));
  CHECK(s.format(c) == "block_size=128 items=2 layout=soa");
}

TEST_CASE("malformed config JSON is rejected with the axis named") {
  const Space s = memtune::search::testing::small_space();
  CHECK_THROWS_WITH_AS(s.config_from_json(json::parse(R"({"block_size": 128, "items": 2})")),
                       doctest::Contains("layout"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.config_from_json(json::parse(R"({"block_size": 100, "items": 2, "layout": "aos"})")),
                       doctest::Contains("block_size"), std::invalid_argument);
  CHECK_THROWS_AS(s.config_from_json(json::parse(R"({"block_size": 128, "items": 2, "layout": "csr"})")),
                  std::invalid_argument);
  CHECK_THROWS_WITH_AS(s.config_from_json(json::parse(R"({"block_size": 128, "items": 2, "layout": "aos", "x": 1})")),
                       doctest::Contains("'x'"), std::invalid_argument);
  CHECK_THROWS_AS(s.config_from_json(json::parse("[1, 2]")), std::invalid_argument);
}

TEST_CASE("a space round-trips through JSON") {
  Space s = memtune::search::testing::small_space();
  s.require(Constraint::implies(axis("layout") == 1, axis("items") >= 2));
  s.note_pruned({"bank_mode", "sm_90 has fixed 4-byte banks"});
  const Space back = Space::from_json(s.to_json());
  CHECK(back.to_json() == s.to_json());
  CHECK(back.enumerate() == s.enumerate());
  REQUIRE(back.pruned().size() == 1);
  CHECK(back.pruned()[0].reason == "sm_90 has fixed 4-byte banks");
  CHECK(back.axis("block_size").description == "threads per block");
}

TEST_CASE("malformed space JSON is an invalid argument") {
  CHECK_THROWS_AS(Space::from_json(json::parse("{}")), std::invalid_argument);
  CHECK_THROWS_AS(Space::from_json(json::parse(R"({"axes": [{"name": "a", "kind": "fuzzy", "values": [1]}]})")),
                  std::invalid_argument);
  CHECK_THROWS_AS(Space::from_json(json::parse(R"({"axes": [{"name": "a", "values": [2, 1]}]})")),
                  std::invalid_argument);
  CHECK_THROWS_AS(Space::from_json(json::parse(R"({"axes": [{"kind": "ordinal", "values": [1]}]})")),
                  std::invalid_argument);
  CHECK_THROWS_AS(Space::from_json(json::parse(R"({"axes": [{"name": "a", "values": [1]}],
                                                   "constraints": [{"lhs": "a", "cmp": "<>", "rhs": 1}]})")),
                  std::invalid_argument);
}

TEST_CASE("count_valid counts small spaces exactly and estimates large ones, saying so") {
  const Space medium = memtune::search::testing::medium_space();
  const ValidCount exact = medium.count_valid();
  CHECK(exact.exact);
  CHECK(exact.value == 460);
  CHECK(exact.describe() == "460");

  const Space huge = memtune::search::testing::huge_space(); // 10^7, 8.5 million valid
  CHECK(huge.cross_product_size() == 10'000'000);
  const ValidCount estimate = huge.count_valid();
  CHECK_FALSE(estimate.exact);
  CHECK(estimate.sampled == 65536);
  const double truth = static_cast<double>(memtune::search::testing::kHugeSpaceValid);
  CHECK(std::abs(static_cast<double>(estimate.value) - truth) < 0.01 * truth);
  CHECK(estimate.describe().find("about 8") == 0);
  CHECK(estimate.describe().find("estimated") != std::string::npos);
  CHECK(huge.count_valid() .value == estimate.value); // deterministic, no engine

  // Exact on request, by walking the grid without storing it.
  Space small_but_walked = memtune::search::testing::small_space();
  CHECK(small_but_walked.count_valid(0).exact == false);
  CHECK(small_but_walked.count_valid(24).value == 22);
}

TEST_CASE("listing a huge space is refused with its size; a space beyond 2^64 configs cannot be built") {
  Space huge = memtune::search::testing::huge_space();
  huge.add(Axis::ordinal("h", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})); // 10^8
  CHECK_THROWS_WITH_AS((void)huge.enumerate(), doctest::Contains("100000000 configurations"), std::length_error);
  Space vast;
  std::vector<std::int64_t> thousand(1000);
  for (std::size_t i = 0; i < thousand.size(); ++i) thousand[i] = static_cast<std::int64_t>(i);
  for (int k = 0; k < 6; ++k) vast.add(Axis::ordinal("x" + std::to_string(k), thousand)); // 10^18
  CHECK_THROWS_WITH_AS(vast.add(Axis::ordinal("x6", thousand)), doctest::Contains("2^64"), std::invalid_argument);
  CHECK(vast.cross_product_size() == 1'000'000'000'000'000'000ULL);
}

TEST_CASE("index_of inverts at_index, and names no index for a config off the space") {
  Space s;
  s.add(Axis::ordinal("a", {1, 2}));
  s.add(Axis::ordinal("b", {10, 20, 30}));
  s.add(Axis::categorical("c", {"x", "y"}));
  s.require((axis("a") * axis("b") <= 40).because("small enough"));
  for (std::size_t i = 0; i < s.cross_product_size(); ++i) CHECK(s.index_of(s.at_index(i)) == i); // valid or not
  CHECK_FALSE(s.index_of(Config{{"a", 1}, {"b", 15}, {"c", 0}}).has_value());            // off the axis
  CHECK_FALSE(s.index_of(Config{{"a", 1}, {"b", 10}}).has_value());                      // an axis missing
  CHECK_FALSE(s.index_of(Config{{"a", 1}, {"b", 10}, {"c", 0}, {"d", 0}}).has_value());  // an axis too many
  CHECK_FALSE(s.index_of(Config{{"a", 1}, {"b", 10}, {"d", 0}}).has_value());            // another axis
}

TEST_CASE("valid_saved_config: a saved configuration that parses and may run here, else none") {
  const Space s = testing::small_space();
  const auto ok = s.valid_saved_config({{"block_size", 256}, {"items", 4}, {"layout", "soa"}});
  REQUIRE(ok);
  CHECK(ok->at("block_size") == 256);
  CHECK(s.valid_saved_config({{"block_size", 256}, {"items", 2}})); // an axis it lacks takes its first value
  CHECK_FALSE(s.valid_saved_config({{"block_size", 512}, {"items", 4}, {"layout", "aos"}})); // 2048 > 1024
  CHECK_FALSE(s.valid_saved_config({{"block_size", 100}, {"items", 1}, {"layout", "aos"}})); // not a value of the axis
  CHECK_FALSE(s.valid_saved_config(nlohmann::json::array()));
}

TEST_CASE("same_kernel: a configuration that breaks only duplicate-marking constraints maps to the one kept") {
  Space s = testing::small_space();
  // Made up: with aos, items 4 is the same kernel as items 2 (and is left out).
  const auto aos_items_4_is_2 = [] {
    return Constraint::from_expr(parse_expr("layout == 1 || items != 4"), "aos: items 4 is items 2").duplicates_of({{"items", 2}});
  };
  s.require(aos_items_4_is_2());
  CHECK(s.same_kernel({{"block_size", 64}, {"items", 4}, {"layout", 0}}) == Config{{"block_size", 64}, {"items", 2}, {"layout", 0}});
  // Valid: itself. A plain constraint broken (2048 > 1024) or a value off its axis: none.
  CHECK(s.same_kernel({{"block_size", 64}, {"items", 4}, {"layout", 1}}) == Config{{"block_size", 64}, {"items", 4}, {"layout", 1}});
  CHECK_FALSE(s.same_kernel({{"block_size", 512}, {"items", 4}, {"layout", 1}}));
  CHECK_FALSE(s.same_kernel({{"block_size", 100}, {"items", 4}, {"layout", 0}}));
  // The mapped configuration must itself be kept: one that then breaks a plain constraint has none.
  Space tight = testing::small_space();
  tight.require(Constraint::from_expr(parse_expr("items != 2 || block_size <= 128"), "plain"));
  tight.require(aos_items_4_is_2());
  CHECK_FALSE(tight.same_kernel({{"block_size", 256}, {"items", 4}, {"layout", 0}}));
  // Two marking constraints that send each other's breakers back: bounded, none.
  Space loop = testing::small_space();
  loop.require((axis("items") != 1).because("1 is 2").duplicates_of({{"items", 2}}));
  loop.require((axis("items") != 2).because("2 is 1").duplicates_of({{"items", 1}}));
  CHECK_FALSE(loop.same_kernel({{"block_size", 64}, {"items", 1}, {"layout", 0}}));
  // The saved form: parsed first; one that does not parse has none.
  CHECK(s.same_kernel_of_saved({{"block_size", 64}, {"items", 4}, {"layout", "aos"}}) ==
        Config{{"block_size", 64}, {"items", 2}, {"layout", 0}});
  CHECK_FALSE(s.same_kernel_of_saved({{"block_size", "wide"}}));
  CHECK_FALSE(s.same_kernel_of_saved(nlohmann::json::array()));
}
