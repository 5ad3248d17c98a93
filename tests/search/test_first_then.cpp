#include <memtune/search/first_then.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/grid_cursor.hpp>

#include "spaces.hpp"

#include <doctest/doctest.h>

#include <random>
#include <set>

using namespace memtune::search;

namespace {

// Proposes the space in grid order; remembers what it was told.
class Listing final : public Strategy {
public:
  explicit Listing(std::vector<Config> order) : order_(std::move(order)) {}
  std::string name() const override { return "listing"; }
  std::optional<Config> next() override {
    if (at_ == order_.size()) return std::nullopt;
    return order_[at_++];
  }
  void observe(const Trial& t) override { seen.push_back(t.config); }
  std::vector<Config> seen;

private:
  std::vector<Config> order_;
  std::size_t at_ = 0;
};

Config c(std::int64_t a) { return Config{{"a", a}}; }

} // namespace

TEST_CASE("FirstThen: its configurations first, then the inner strategy's; every observation reaches the inner one") {
  auto inner = std::make_unique<Listing>(std::vector<Config>{c(1), c(2), c(3)});
  Listing* listing = inner.get();
  FirstThen s({c(3)}, std::move(inner));
  CHECK(s.name() == "listing");
  const auto first = s.next();
  REQUIRE(first);
  CHECK(*first == c(3));
  s.observe({c(3), 1.0});
  CHECK(*s.next() == c(1));
  CHECK(*s.next() == c(2));
  // The inner strategy's c(3) is proposed again by it: FirstThen passes it on
  // (only a configuration still outstanding here is skipped).
  CHECK(*s.next() == c(3));
  CHECK_FALSE(s.next());
  CHECK(listing->seen == std::vector<Config>{c(3)});
}

TEST_CASE("FirstThen: an inner proposal of a configuration still outstanding is skipped") {
  FirstThen s({c(1)}, std::make_unique<Listing>(std::vector<Config>{c(1), c(2)}));
  CHECK(*s.next() == c(1));
  CHECK(*s.next() == c(2)); // the inner c(1) is being measured already
  CHECK_FALSE(s.next());
}

TEST_CASE("FirstThen: a first configuration already observed (a resumed run) is not proposed again") {
  FirstThen s({c(1), c(2)}, std::make_unique<Listing>(std::vector<Config>{}));
  s.observe({c(1), 2.0});
  CHECK(*s.next() == c(2));
  CHECK_FALSE(s.next());
}

TEST_CASE("FirstThen over bayes: the first configuration is measured first and never proposed again") {
  const Space space = testing::small_space();
  std::vector<Config> valid = space.enumerate();
  REQUIRE(valid.size() > 4);
  const Config chosen = valid[valid.size() / 2];
  std::mt19937_64 engine(7);
  FirstThen s({chosen}, make_strategy("bayes", space, engine, {}));
  CHECK(s.name() == "bayes");
  std::set<Config> proposed;
  for (std::size_t k = 0; k < valid.size(); ++k) {
    const auto p = s.next();
    if (!p) break;
    if (k == 0) CHECK(*p == chosen);
    CHECK(proposed.insert(*p).second); // no configuration twice
    s.observe({*p, 1.0 + static_cast<double>(k % 7)});
  }
  CHECK(proposed.size() == valid.size());
}
