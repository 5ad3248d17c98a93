// SlotExpr against Expr::eval: the same value wherever eval gives one, and
// nullopt wherever eval throws, on random trees of every operator.
#include <memtune/search/slot_expr.hpp>

#include <doctest/doctest.h>

#include <array>
#include <random>
#include <stdexcept>

using namespace memtune::search;

namespace {

const std::vector<std::string> kNames{"threadIdx.x", "threadIdx.y", "iteration"};

Expr random_tree(std::mt19937_64& g, int depth) {
  std::uniform_int_distribution<int> pick(0, 27);
  const int k = depth <= 0 ? pick(g) % 3 : pick(g);
  const auto sub = [&] { return random_tree(g, depth - 1); };
  switch (k) {
  case 0: return Expr(std::uniform_int_distribution<std::int64_t>(-9, 9)(g));
  case 1: return axis(kNames[static_cast<std::size_t>(pick(g)) % kNames.size()]);
  case 2: return g() % 50 == 0 ? Expr(std::numeric_limits<std::int64_t>::max()) : axis("iteration");
  case 3: return Expr::unary(Expr::Op::lnot, sub());
  case 4: return Expr::unary(Expr::Op::neg, sub());
  case 5: return Expr::select(sub(), sub(), sub());
  default: {
    static constexpr std::array kBinary{Expr::Op::add,    Expr::Op::sub,     Expr::Op::mul, Expr::Op::div,
                                        Expr::Op::mod,    Expr::Op::min,     Expr::Op::max, Expr::Op::ceil_div,
                                        Expr::Op::bit_and, Expr::Op::bit_xor, Expr::Op::lt,  Expr::Op::le,
                                        Expr::Op::eq,     Expr::Op::ne,      Expr::Op::ge,  Expr::Op::gt,
                                        Expr::Op::land,   Expr::Op::lor,     Expr::Op::mul, Expr::Op::div,
                                        Expr::Op::add,    Expr::Op::mod};
    return Expr::apply(kBinary[static_cast<std::size_t>(k - 6)], sub(), sub());
  }
  }
}

} // namespace

TEST_CASE("a slot expression gives Expr::eval's value, and nullopt where eval throws") {
  std::mt19937_64 g(11);
  int values = 0, errors = 0;
  for (int t = 0; t < 3000; ++t) {
    const Expr e = random_tree(g, 5);
    const auto s = SlotExpr::bind(e, kNames);
    REQUIRE(s);
    for (int k = 0; k < 8; ++k) {
      const std::array<std::int64_t, 3> v{std::int64_t(g() % 64) - 8, std::int64_t(g() % 16), std::int64_t(g() % 5)};
      const Config c{{"threadIdx.x", v[0]}, {"threadIdx.y", v[1]}, {"iteration", v[2]}};
      CAPTURE(e.to_string());
      std::optional<std::int64_t> want;
      try {
        want = e.eval(c);
      } catch (const std::exception&) {
      }
      CHECK(s->try_eval(v) == want);
      (want ? values : errors) += 1;
    }
  }
  MESSAGE(values << " values and " << errors << " errors compared");
  CHECK(errors > 100); // the trees reach division by zero and overflow
}

TEST_CASE("a slot expression is refused where it reads another name; a label fails as eval throws") {
  CHECK_FALSE(SlotExpr::bind(parse_expr("threadIdx.x + n"), kNames));
  const auto s = SlotExpr::bind(parse_expr("threadIdx.x * 4 + iteration"), kNames);
  REQUIRE(s);
  CHECK(s->try_eval(std::array<std::int64_t, 3>{3, 0, 2}) == 14);
  const auto label = SlotExpr::bind(Expr::label("soa"), kNames);
  REQUIRE(label);
  CHECK_FALSE(label->try_eval(std::array<std::int64_t, 3>{0, 0, 0}));
}
