#include <memtune/search/expr.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

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

// ---------------------------------------------------------------- the language of kernel descriptions

namespace {
std::int64_t eval_text(const std::string& text, const Config& c = {}) { return parse_expr(text).eval(c); }

std::size_t syntax_error_position(const std::string& text) {
  try {
    (void)parse_expr(text);
  } catch (const ExprSyntaxError& e) {
    return e.position();
  }
  FAIL("no syntax error in: " << text);
  return 0;
}
} // namespace

TEST_CASE("parsed text follows C's precedence and associativity") {
  CHECK(eval_text("1 + 2 * 3") == 7);
  CHECK(eval_text("(1 + 2) * 3") == 9);
  CHECK(eval_text("10 - 4 - 3") == 3);
  CHECK(eval_text("64 / 4 / 2") == 8);
  CHECK(eval_text("7 % 4 * 2") == 6);
  CHECK(eval_text("-2 * 3") == -6);
  CHECK(eval_text("- (2 + 3)") == -5);
  CHECK(eval_text("!0 + !5") == 1);
  CHECK(eval_text("1 < 2 == 1") == 1);
  CHECK(eval_text("1 || 0 && 0") == 1);
  CHECK(eval_text("0 ? 1 : 0 ? 2 : 3") == 3);
  CHECK(eval_text("1 ? 2 : 3 + 10") == 2);
  CHECK(eval_text("true + true + false") == 2);
  const Config c{{"n", 1000}, {"block_size", 256}, {"items", 4}};
  CHECK(eval_text("ceil_div(n, block_size * items)", c) == 1);
  CHECK(eval_text("round_up(n, 64)", c) == 1024);
  CHECK(eval_text("min(n, 10) + max(n, 10)", c) == 1010);
  CHECK(eval_text("n >= 1000 && block_size != 128", c) == 1);
  CHECK(eval_text("device.sm_count", Config{{"device.sm_count", 132}}) == 132);
}

TEST_CASE("literals: sizes with binary suffixes, hex, and the extremes of 64 bits") {
  CHECK(eval_text("16K") == 16384);
  CHECK(eval_text("4M") == 4 * 1048576);
  CHECK(eval_text("1G") == 1073741824);
  CHECK(eval_text("2g") == 2147483648LL);
  CHECK(eval_text("0x1F") == 31);
  CHECK(eval_text("9223372036854775807") == INT64_MAX);
  CHECK(eval_text("-9223372036854775808") == INT64_MIN);
  CHECK_THROWS_AS(parse_expr("9223372036854775808"), ExprSyntaxError);
  CHECK_THROWS_AS(parse_expr("99999999999999999999"), ExprSyntaxError);
  CHECK_THROWS_AS(parse_expr("9000000000G"), ExprSyntaxError);
  CHECK_THROWS_AS(parse_expr("16Q"), ExprSyntaxError);
}

TEST_CASE("division truncates like C++; ceil_div rounds up for any sign") {
  CHECK(eval_text("-7 / 2") == -3);
  CHECK(eval_text("-7 % 2") == -1);
  CHECK(eval_text("ceil_div(7, 2)") == 4);
  CHECK(eval_text("ceil_div(8, 2)") == 4);
  CHECK(eval_text("ceil_div(-7, 2)") == -3);
  CHECK(eval_text("ceil_div(7, -2)") == -3);
  CHECK(eval_text("ceil_div(-7, -2)") == 4);
  CHECK(eval_text("ceil_div(0, 5)") == 0);
  CHECK(eval_text("round_up(7, 4)") == 8);
  CHECK(eval_text("round_up(8, 4)") == 8);
}

TEST_CASE("bit_and and bit_xor are C's & and ^ (a swizzled shared-memory index)") {
  CHECK(eval_text("bit_and(13, 6)") == 4);
  CHECK(eval_text("bit_xor(13, 6)") == 11);
  CHECK(eval_text("bit_xor(5, bit_and(37, 31))") == 0);
  CHECK(eval_text("bit_and(-1, 255)") == 255);
  const Expr swizzle = parse_expr("r * 32 + bit_xor(c, bit_and(r, 31))");
  CHECK(swizzle.eval(Config{{"r", 3}, {"c", 1}}) == 98);
  CHECK(Expr::from_json(swizzle.to_json()).to_string() == swizzle.to_string());
  CHECK(swizzle.to_json().dump().find("\"bit_xor\"") != std::string::npos);
}

TEST_CASE("overflow and division by zero are domain errors naming the expression") {
  CHECK_THROWS_WITH_AS(eval_text("9223372036854775807 + 1"), doctest::Contains("overflow"), std::domain_error);
  CHECK_THROWS_AS(eval_text("-9223372036854775807 - 2"), std::domain_error);
  CHECK_THROWS_AS(eval_text("4G * 4G * 4G"), std::domain_error);
  CHECK_THROWS_AS(eval_text("-9223372036854775808 / -1"), std::domain_error);
  CHECK_THROWS_AS(eval_text("-9223372036854775808 % -1"), std::domain_error);
  CHECK_THROWS_AS((void)parse_expr("-x").eval(Config{{"x", INT64_MIN}}), std::domain_error);
  CHECK_THROWS_WITH_AS(eval_text("n / (n - n)", Config{{"n", 3}}), doctest::Contains("(n - n)"), std::domain_error);
  CHECK_THROWS_AS(eval_text("ceil_div(3, 0)"), std::domain_error);
  CHECK_THROWS_AS(eval_text("5 % 0"), std::domain_error);
}

TEST_CASE("&&, || and ?: evaluate only what C would") {
  const Config c{{"a", 10}, {"b", 0}};
  CHECK(eval_text("b != 0 && a / b > 2", c) == 0);
  CHECK(eval_text("b == 0 || a / b > 2", c) == 1);
  CHECK(eval_text("b == 0 ? 0 : a / b", c) == 0);
  CHECK_THROWS_AS(eval_text("b == 0 && a / b > 2", c), std::domain_error);
}

TEST_CASE("syntax errors say what is wrong and where") {
  CHECK(syntax_error_position("") == 0);
  CHECK(syntax_error_position("1 +") == 3);
  CHECK(syntax_error_position("(1 + 2") == 6);
  CHECK(syntax_error_position("a = b") == 2);
  CHECK(syntax_error_position("1 2") == 2);
  CHECK(syntax_error_position("TILE * ) <= 4") == 7);
  CHECK(syntax_error_position("foo(1, 2)") == 0);
  CHECK(syntax_error_position("min(1 2)") == 6);
  CHECK(syntax_error_position("a ? b") == 5);
  CHECK(syntax_error_position("x == \"soa") == 5);
  CHECK(syntax_error_position("a & b") == 2);
  CHECK(syntax_error_position("3 $ 4") == 2);
  CHECK_THROWS_WITH(parse_expr("a = b"), doctest::Contains("write =="));
  CHECK_THROWS_WITH(parse_expr("foo(1, 2)"), doctest::Contains("unknown function 'foo'"));
  CHECK_THROWS_WITH(parse_expr("(1 + 2"), doctest::Contains("column 7"));
  CHECK_THROWS_AS(parse_expr("1 +"), std::invalid_argument); // ExprSyntaxError is an invalid_argument
}

TEST_CASE("to_string is parseable text that gives back the same tree") {
  const Config c{{"a", 6}, {"b", -4}, {"layout", 1}};
  for (const char* text : {"a + b * 3", "-a - -5", "!(a < b) || a >= 2 && b != 0", "a > 0 ? min(a, b) : ceil_div(a, 4)",
                           "round_up(a, 4) % 3", "-(a + b)", "max(-a, b) / 2", "layout == 1 ? 7 : -9223372036854775808",
                           "!!a", "a <= b == (b > a)", "bit_xor(a, bit_and(b, 7)) + 1"}) {
    CAPTURE(text);
    const Expr e = parse_expr(text);
    const Expr back = parse_expr(e.to_string());
    CHECK(back.to_string() == e.to_string());
    CHECK(back.eval(c) == e.eval(c));
    CHECK(Expr::from_json(e.to_json()).to_string() == e.to_string());
  }
  CHECK(parse_expr("a+b*3").to_string() == "(a + (b * 3))");
  CHECK(parse_expr("x == \"soa\"").to_string() == "(x == \"soa\")");
}

TEST_CASE("recordings' JSON expressions still load; new operators round-trip") {
  using nlohmann::json;
  // As the filter recording in bench/data wrote them before the language grew.
  const json old = json::parse(R"({"op": "%", "args": [{"op": "+", "args": [10, {"op": "*", "args": ["align", 2]}]}, "vec"]})");
  CHECK(Expr::from_json(old).eval(Config{{"align", 1}, {"vec", 4}}) == 0);
  CHECK(Expr::from_json(old).to_json() == old);
  const json select = json::parse(R"({"op": "?:", "args": [{"op": "!", "args": ["a"]}, {"op": "neg", "args": ["b"]}, 3]})");
  CHECK(Expr::from_json(select).eval(Config{{"a", 0}, {"b", 5}}) == -5);
  CHECK(Expr::from_json(select).to_json() == select);
  const json label = json::parse(R"({"op": "==", "args": ["layout", {"op": "label", "args": ["soa"]}]})");
  CHECK(Expr::from_json(label).to_string() == "(layout == \"soa\")");
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": "?:", "args": [1, 2]})")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": "!", "args": [1, 2]})")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": "label", "args": [3]})")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse(R"({"op": "+", "args": [1, 2], "extra": 1})")), std::invalid_argument);
  CHECK_THROWS_AS(Expr::from_json(json::parse("18446744073709551615")), std::invalid_argument);
}

TEST_CASE("deep expressions are clean errors, never a stack overflow") {
  using nlohmann::json;
  constexpr int kDeep = 30000;
  std::string text;
  for (int i = 0; i < kDeep; ++i) text += R"({"op": "neg", "args": [)";
  text += "1";
  for (int i = 0; i < kDeep; ++i) text += "]}";
  const json deep = json::parse(text);
  CHECK_THROWS_WITH_AS(Expr::from_json(deep), doctest::Contains("deeper than"), std::invalid_argument);

  std::string constraint = "1";
  for (int i = 0; i < kDeep; ++i) constraint = R"({"lhs": 1, "cmp": "<", "rhs": 2, "if": )" + constraint + "}";
  CHECK_THROWS_AS(Constraint::from_json(json::parse(constraint)), std::invalid_argument);

  CHECK_THROWS_WITH_AS(parse_expr(std::string(kDeep, '(') + "1" + std::string(kDeep, ')')), doctest::Contains("deeper than"),
                       ExprSyntaxError);
  CHECK_THROWS_AS(parse_expr(std::string(kDeep, '!') + "x"), ExprSyntaxError);
  CHECK_THROWS_AS(parse_expr(std::string(kDeep, '-') + "x"), ExprSyntaxError);
  std::string chain = "1";
  for (int i = 0; i < 1000; ++i) chain += " + 1";
  CHECK_THROWS_AS(parse_expr(chain), ExprSyntaxError);
  std::string calls = "1";
  for (int i = 0; i < kDeep / 10; ++i) calls = "min(" + calls + ", 2)";
  CHECK_THROWS_AS(parse_expr(calls), ExprSyntaxError);

  // Just below the limit is fine, in both forms.
  std::string ok = "x";
  for (int i = 1; i < kMaxExprDepth; ++i) ok = "(" + ok + " + 1)";
  const Expr e = parse_expr(ok);
  CHECK(e.depth() == kMaxExprDepth);
  CHECK(e.eval(Config{{"x", 1}}) == kMaxExprDepth);
  CHECK(Expr::from_json(e.to_json()).depth() == kMaxExprDepth);
}

TEST_CASE("unary + is nested like every other operator: 3 million of them are an error, not a stack overflow") {
  const std::string plus(3'000'000, '+');
  CHECK_THROWS_WITH_AS(parse_expr(plus + "BLOCK <= 1024"), doctest::Contains("deeper than"), ExprSyntaxError);
  CHECK(parse_expr("+ + +BLOCK").eval(Config{{"BLOCK", 3}}) == 3);
}

TEST_CASE("an expression standing for an exponential tree is refused, not expanded") {
  // round_up(a, b) reads b twice: 24 nested ones stand for 2^24 nodes.
  std::string nested = "BLOCK";
  for (int i = 0; i < 24; ++i) nested = "round_up(ITEMS, " + nested + ")";
  CHECK_THROWS_WITH_AS(parse_expr(nested + " <= 1024"), doctest::Contains("expands to more than"), ExprSyntaxError);
  // A few are fine, and cost what they read.
  std::string few = "BLOCK";
  for (int i = 0; i < 4; ++i) few = "round_up(ITEMS, " + few + ")";
  const Expr e = parse_expr(few);
  CHECK(e.size() < 100);
  CHECK(e.eval(Config{{"ITEMS", 3}, {"BLOCK", 5}}) == 5); // round_up(3, 5) = 5, four times
  CHECK(parse_expr("round_up(ITEMS, BLOCK)").eval(Config{{"ITEMS", 7}, {"BLOCK", 5}}) == 10);

  // Derived values d_i = d_{i-1} + d_{i-1}, bound one into the next as a description does.
  std::map<std::string, Expr> bound{{"d0", axis("BLOCK")}};
  const auto bind = [&](const std::string& name) -> std::optional<Expr> {
    if (const auto it = bound.find(name); it != bound.end()) return it->second;
    return std::nullopt;
  };
  int i = 1;
  try {
    for (; i <= 24; ++i) {
      const std::string prev = "d" + std::to_string(i - 1);
      bound.insert_or_assign("d" + std::to_string(i), parse_expr(prev + " + " + prev).substitute(bind));
    }
  } catch (const ExprTooLarge& e) {
    CHECK(std::string(e.what()).find("expands to more than") != std::string::npos);
  }
  CHECK(i == 16); // 2^16 nodes: the first past kMaxExprSize
  CHECK(bound.at("d15").eval(Config{{"BLOCK", 1}}) == 1 << 15);
}

TEST_CASE("an evaluation error names where the constraint was written, and a huge expression is not echoed whole") {
  const Constraint c = Constraint::from_expr(parse_expr("n % (ITEMS - ITEMS) == 0")).located("k.json: field 'constraints[1]'");
  CHECK_THROWS_WITH_AS((void)c.holds(Config{{"n", 8}, {"ITEMS", 2}}),
                       "k.json: field 'constraints[1]': expression (n % (ITEMS - ITEMS)): division by zero",
                       std::domain_error);
  // Bound (substituted) constraints keep it.
  CHECK(c.substitute([](const std::string&) { return std::nullopt; }).where() == c.where());

  std::string big = "x";
  for (int i = 0; i < 100; ++i) big = "(" + big + " + x)";
  const Expr huge = parse_expr(big + " / 0");
  try {
    (void)huge.eval(Config{{"x", 1}});
    FAIL("expected division by zero");
  } catch (const std::domain_error& e) {
    CHECK(std::string(e.what()).size() < 300);
    CHECK(std::string(e.what()).find("...") != std::string::npos);
  }
}

TEST_CASE("substitute replaces names and folds what became constant") {
  const Expr e = parse_expr("ceil_div(n, BLOCK * ITEMS) * warp_size");
  const Expr bound = e.substitute([](const std::string& name) -> std::optional<Expr> {
    if (name == "n") return Expr(1000);
    if (name == "warp_size") return Expr(32);
    return std::nullopt;
  });
  CHECK(bound.to_string() == "(ceil_div(1000, (BLOCK * ITEMS)) * 32)");
  std::vector<std::string> names;
  bound.collect_axes(names);
  CHECK(names == std::vector<std::string>{"BLOCK", "ITEMS"});

  const auto all = [](const std::string& name) -> std::optional<Expr> {
    if (name == "BLOCK") return Expr(256);
    if (name == "ITEMS") return Expr(4);
    if (name == "tiles") return parse_expr("ceil_div(n, 64)"); // a derived value: an expression of its own
    return std::nullopt;
  };
  CHECK(bound.substitute(all).is_constant());
  CHECK(bound.substitute(all).constant_value() == 32);
  CHECK(parse_expr("tiles + 1").substitute(all).to_string() == "(ceil_div(n, 64) + 1)");
  // Short-circuits fold even when the other side cannot be evaluated.
  CHECK(parse_expr("BLOCK > 512 && x / y > 2").substitute(all).constant_value() == 0);
  CHECK(parse_expr("BLOCK < 512 || x / y > 2").substitute(all).constant_value() == 1);
  CHECK(parse_expr("BLOCK == 256 ? ITEMS : x").substitute(all).constant_value() == 4);
  // x / 0 is left for eval to report.
  const Expr zero = parse_expr("BLOCK / (ITEMS - 4)").substitute(all);
  CHECK_FALSE(zero.is_constant());
  CHECK_THROWS_AS((void)zero.eval(Config{}), std::domain_error);
}

TEST_CASE("labels resolve to the index of an enumeration's label, and only there") {
  const auto labels_of = [](const std::string& name) -> std::optional<std::vector<std::string>> {
    if (name == "layout") return std::vector<std::string>{"aos", "soa", "aos_ldg"};
    return std::nullopt;
  };
  const Expr e = parse_expr("layout == \"soa\" || \"aos_ldg\" != layout").resolve_labels(labels_of);
  CHECK(e.to_string() == "((layout == 1) || (2 != layout))");
  CHECK(e.eval(Config{{"layout", 1}}) == 1);
  CHECK(e.eval(Config{{"layout", 2}}) == 0);
  CHECK_THROWS_WITH_AS((void)parse_expr("layout == \"SoA\"").resolve_labels(labels_of),
                       doctest::Contains("labels: aos, soa, aos_ldg"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_expr("n == \"soa\"").resolve_labels(labels_of),
                       doctest::Contains("not an enumeration"), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_expr("\"soa\" + 1").resolve_labels(labels_of), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_expr("layout < \"soa\"").resolve_labels(labels_of), std::invalid_argument);
  CHECK_THROWS_AS((void)parse_expr("layout + 1 == \"soa\"").resolve_labels(labels_of), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse_expr("layout == \"soa\"").eval(Config{{"layout", 1}}), doctest::Contains("not resolved"),
                       std::invalid_argument);
}

TEST_CASE("any boolean expression is a constraint; comparisons keep their form") {
  const Constraint c = Constraint::from_expr(parse_expr("TILE * ROWS <= 1024"), "threads per block");
  CHECK(c.to_string() == "(TILE * ROWS) <= 1024");
  CHECK(c.reason() == "threads per block");
  CHECK(c.holds(Config{{"TILE", 32}, {"ROWS", 32}}));
  CHECK_FALSE(c.holds(Config{{"TILE", 64}, {"ROWS", 32}}));
  const Constraint logic = Constraint::from_expr(parse_expr("a == 1 || b == 2"));
  CHECK(logic.to_string() == "((a == 1) || (b == 2)) != 0");
  CHECK(logic.holds(Config{{"a", 0}, {"b", 2}}));
  CHECK_FALSE(logic.holds(Config{{"a", 0}, {"b", 1}}));
  CHECK(Constraint::from_json(logic.to_json()).holds(Config{{"a", 1}, {"b", 0}}));

  const Constraint implication = Constraint::implies(axis("a") == axis("k"), axis("b") <= axis("limit"));
  const Constraint bound = implication.substitute([](const std::string& name) -> std::optional<Expr> {
    if (name == "k") return Expr(1);
    if (name == "limit") return Expr(4);
    return std::nullopt;
  });
  CHECK(bound.to_string() == "if a == 1 then b <= 4");
  std::vector<std::string> names;
  implication.collect_axes(names);
  CHECK(names == std::vector<std::string>{"a", "k", "b", "limit"});
}
