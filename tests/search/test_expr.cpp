#include <memtune/search/expr.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

using namespace memtune::search;

TEST_CASE("expressions evaluate integer arithmetic on a config") {
  const Config c{{"a", 7}, {"b", 3}};
  CHECK((axis("a") + axis("b")).eval(c) == 10);
  CHECK((axis("a") - 10).eval(c) == -3);
  CHECK((axis("a") * axis("b")).eval(c) == 21);
  CHECK((axis("a") / axis("b")).eval(c) == 2);
  CHECK((axis("a") % axis("b")).eval(c) == 1);
  CHECK(min(axis("a"), axis("b")).eval(c) == 3);
  CHECK(max(axis("a"), 100).eval(c) == 100);
}

TEST_CASE("expression errors name the problem") {
  const Config c{{"a", 7}, {"zero", 0}};
  CHECK_THROWS_AS((void)(axis("a") / axis("zero")).eval(c), std::domain_error);
  CHECK_THROWS_AS((void)(axis("a") % axis("zero")).eval(c), std::domain_error);
  CHECK_THROWS_WITH_AS((void)axis("missing").eval(c), doctest::Contains("missing"), std::out_of_range);
  CHECK_THROWS_AS((void)axis(""), std::invalid_argument);
}

TEST_CASE("constraints compare, carry a reason and print") {
  const Constraint c = (axis("block_size") * axis("items") <= 8192).because("tile fits");
  CHECK(c.holds(Config{{"block_size", 256}, {"items", 4}}));
  CHECK_FALSE(c.holds(Config{{"block_size", 4096}, {"items", 4}}));
  CHECK(c.reason() == "tile fits");
  CHECK(c.to_string() == "(block_size * items) <= 8192");
  CHECK((axis("a") < 2).holds(Config{{"a", 1}}));
  CHECK_FALSE((axis("a") > 2).holds(Config{{"a", 2}}));
  CHECK((axis("a") >= 2).holds(Config{{"a", 2}}));
  CHECK((axis("a") == 2).holds(Config{{"a", 2}}));
  CHECK_FALSE((axis("a") != 2).holds(Config{{"a", 2}}));
}

TEST_CASE("an implication only binds when its condition holds") {
  const Constraint c = Constraint::implies(axis("packing") == 1, axis("items") >= 2);
  CHECK(c.holds(Config{{"packing", 0}, {"items", 1}}));
  CHECK_FALSE(c.holds(Config{{"packing", 1}, {"items", 1}}));
  CHECK(c.holds(Config{{"packing", 1}, {"items", 2}}));
  CHECK(c.to_string() == "if packing == 1 then items >= 2");
}

TEST_CASE("expressions and constraints round-trip through JSON") {
  const Expr e = max(axis("a") * 2 + axis("b") % 3, 5) / 2 - min(axis("a"), 1);
  const Expr back = Expr::from_json(e.to_json());
  CHECK(back.to_string() == e.to_string());
  for (std::int64_t a = 0; a < 5; ++a)
    for (std::int64_t b = 0; b < 5; ++b) CHECK(back.eval(Config{{"a", a}, {"b", b}}) == e.eval(Config{{"a", a}, {"b", b}}));

  const Constraint c = Constraint::implies(axis("a") == 1, (axis("b") * 4 <= 12).because("fits"));
  const Constraint cb = Constraint::from_json(c.to_json());
  CHECK(cb.to_string() == c.to_string());
  CHECK(cb.reason() == "fits");
  for (std::int64_t a = 0; a < 3; ++a)
    for (std::int64_t b = 0; b < 5; ++b) CHECK(cb.holds(Config{{"a", a}, {"b", b}}) == c.holds(Config{{"a", a}, {"b", b}}));
}

TEST_CASE("malformed expression and constraint JSON is rejected") {
  using nlohmann::json;
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": "^", "args": [1, 2]})")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": "+", "args": [1]})")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse("1.5")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse("[1, 2]")), std::invalid_argument);
  CHECK_THROWS_AS(Constraint::from_json(json::parse(R"({"lhs": 1, "cmp": "=<", "rhs": 2})")), std::invalid_argument);
  CHECK_THROWS_AS(Constraint::from_json(json::parse(R"({"lhs": 1, "rhs": 2})")), std::invalid_argument);
}

TEST_CASE("collect_axes lists the axes an expression reads") {
  std::vector<std::string> names;
  (axis("a") * 2 + min(axis("b"), axis("a"))).collect_axes(names);
  CHECK(names == std::vector<std::string>{"a", "b", "a"});
}

TEST_CASE("non-string operators in JSON are invalid arguments, not JSON type errors") {
  using nlohmann::json;
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": 3, "args": [1, 2]})")), std::invalid_argument);
  CHECK_THROWS_AS(Constraint::from_json(json::parse(R"({"lhs": 1, "cmp": 1, "rhs": 2})")), std::invalid_argument);
  CHECK_THROWS_AS(Constraint::from_json(json::parse(R"({"lhs": 1, "cmp": "<", "rhs": 2, "reason": 7})")),
                  std::invalid_argument);
}
