#include "spaces.hpp"

#include <memtune/search/bayes.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

using namespace memtune::search;

namespace {

// Runs `evaluations` ask/tell rounds (fewer if the strategy runs dry).
std::vector<Trial> run(BayesianSearch& bayes, const std::function<Trial(const Config&)>& f, std::size_t evaluations) {
  std::vector<Trial> trials;
  while (trials.size() < evaluations) {
    const auto c = bayes.next();
    if (!c) break;
    trials.push_back(f(*c));
    bayes.observe(trials.back());
  }
  return trials;
}

Trial bowl(const Config& c) { return testing::ok_trial(c, testing::bowl_time(c)); }

std::vector<Config> configs_of(const std::vector<Trial>& trials) {
  std::vector<Config> out;
  for (const auto& t : trials) out.push_back(t.config);
  return out;
}

} // namespace

TEST_CASE("bayes proposes only valid configs, never twice, until the space is exhausted") {
  const Space s = testing::small_space();
  std::mt19937_64 engine(1);
  BayesianSearch bayes(s, engine);
  CHECK(bayes.name() == "bayes");
  CHECK(bayes.lookahead() == 1);
  CHECK(bayes.candidates() == 22);
  // Fail every config with items == 4, so both the regression and the feasibility model are used.
  const auto trials = run(bayes, [](const Config& c) {
    return c.at("items") == 4 ? testing::failed_trial(c) : testing::ok_trial(c, 1e-3 * static_cast<double>(c.at("block_size")));
  }, 100);
  CHECK(trials.size() == 22);
  std::set<Config> unique;
  for (const auto& t : trials) {
    CHECK(s.is_valid(t.config));
    CHECK(unique.insert(t.config).second);
  }
  CHECK_FALSE(bayes.next().has_value());
}

TEST_CASE("bayes is deterministic for a seed") {
  const Space s = testing::medium_space();
  std::mt19937_64 e1(7), e2(7), e3(8);
  BayesianSearch a(s, e1), b(s, e2), c(s, e3);
  const auto ra = configs_of(run(a, bowl, 25));
  CHECK(ra == configs_of(run(b, bowl, 25)));
  CHECK(ra != configs_of(run(c, bowl, 25)));
}

TEST_CASE("bayes finds the optimum of a smooth bowl in a fraction of the space") {
  const Space s = testing::medium_space(); // 460 valid configs
  const Config optimum{{"block_size", 256}, {"items", 4}, {"padding", 2}, {"packing", 1}, {"bank_mode", 1}};
  std::size_t found_within = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 engine(seed);
    BayesianSearch bayes(s, engine);
    const auto trials = run(bayes, bowl, 60);
    for (std::size_t i = 0; i < trials.size(); ++i)
      if (trials[i].config == optimum) found_within = std::max(found_within, i + 1);
    CHECK(std::any_of(trials.begin(), trials.end(), [&](const Trial& t) { return t.config == optimum; }));
  }
  MESSAGE("optimum of 460 found within " << found_within << " evaluations (random search: 230 expected)");
}

TEST_CASE("the feasibility model steers away from a failing region") {
  // The bowl, recentred so that it is faster towards larger blocks, but
  // blocks >= 512 fail: EI alone keeps walking into the failures, EI x
  // P(feasible) learns the boundary and explores the feasible side instead.
  const Space s = testing::medium_space();
  auto objective = [](const Config& c) {
    if (c.at("block_size") >= 512) return testing::failed_trial(c, "exceeds_device_limits");
    Config shifted = c;
    shifted.set("block_size", c.at("block_size") * 4);
    return testing::ok_trial(c, testing::bowl_time(shifted));
  };
  auto failures_after_design = [&](bool use_feasibility) {
    std::size_t failures = 0;
    for (std::uint64_t seed : {1, 2, 3}) {
      std::mt19937_64 engine(seed);
      BayesOptions options;
      options.initial_points = 10;
      options.use_feasibility = use_feasibility;
      BayesianSearch bayes(s, engine, options);
      const auto trials = run(bayes, objective, 40);
      for (std::size_t i = 10; i < trials.size(); ++i) failures += trials[i].ok() ? 0 : 1;
    }
    return failures;
  };
  const std::size_t with = failures_after_design(true), without = failures_after_design(false);
  MESSAGE("failed proposals after the initial design, 3 seeds x 30: " << with << " with the feasibility model, "
                                                                     << without << " without");
  CHECK(with * 2 < without);
}

TEST_CASE("an exact prior mean leads straight to the optimum") {
  const Space s = testing::medium_space();
  const Config optimum{{"block_size", 256}, {"items", 4}, {"padding", 2}, {"packing", 1}, {"bank_mode", 1}};
  std::mt19937_64 engine(3);
  BayesOptions options;
  options.initial_points = 5;
  options.prior_mean = [](const Config& c) { return std::log(testing::bowl_time(c)); };
  auto found_within = [&](BayesOptions o, std::size_t evaluations) {
    BayesianSearch bayes(s, engine, o);
    const auto trials = run(bayes, bowl, evaluations);
    return std::any_of(trials.begin(), trials.end(), [&](const Trial& t) { return t.config == optimum; });
  };
  // EI alone takes the optimum with its first proposal; the default portfolio
  // may first follow PI or LCB, which weigh the (uniform) uncertainty too.
  options.acquisition = BayesOptions::Acquisition::ei;
  CHECK(found_within(options, 6));
  options.acquisition = BayesOptions::Acquisition::hedge;
  CHECK(found_within(options, 10));

  BayesOptions broken;
  broken.prior_mean = [](const Config& c) { return c.at("items") == 8 ? std::nan("") : 0.0; };
  CHECK_THROWS_WITH_AS(BayesianSearch(s, engine, broken), doctest::Contains("items=8"), std::invalid_argument);
}

TEST_CASE("bayes keeps exploring when everything fails") {
  const Space s = testing::small_space();
  std::mt19937_64 engine(5);
  BayesianSearch bayes(s, engine);
  const auto trials = run(bayes, [](const Config& c) { return testing::failed_trial(c); }, 100);
  CHECK(trials.size() == 22);
  const auto configs = configs_of(trials);
  CHECK(std::set<Config>(configs.begin(), configs.end()).size() == 22);
}

TEST_CASE("configs observed from elsewhere are never proposed, and bad observations are rejected") {
  const Space s = testing::small_space();
  std::mt19937_64 engine(2);
  BayesianSearch bayes(s, engine);
  const auto all = s.enumerate();
  for (std::size_t i = 0; i < all.size(); i += 2) bayes.observe(testing::ok_trial(all[i], 1e-3 + 1e-5 * static_cast<double>(i)));
  std::set<Config> proposed;
  while (auto c = bayes.next()) {
    CHECK(proposed.insert(*c).second);
    bayes.observe(testing::ok_trial(*c, 1.0));
  }
  CHECK(proposed.size() == all.size() / 2);
  for (std::size_t i = 0; i < all.size(); i += 2) CHECK(proposed.count(all[i]) == 0);

  CHECK_THROWS_AS(bayes.observe(testing::ok_trial(Config{{"block_size", 512}, {"items", 4}, {"layout", 0}}, 1.0)),
                  std::invalid_argument);
  CHECK_THROWS_AS(bayes.observe(testing::ok_trial(all[0], 0.0)), std::invalid_argument);
  CHECK_THROWS_AS(bayes.observe(testing::ok_trial(all[0], std::nan(""))), std::invalid_argument);
}

TEST_CASE("bayes handles spaces with only categorical or only ordinal axes, and a single config") {
  Space categorical;
  categorical.add(Axis::categorical("layout", {"aos", "soa", "aosoa"}));
  categorical.add(Axis::categorical("cache", {"l1", "ldg"}));
  Space ordinal;
  ordinal.add(Axis::ordinal("block_size", {32, 64, 128, 256, 512, 1024}));
  Space single;
  single.add(Axis::ordinal("block_size", {128}));
  for (const Space* s : {&categorical, &ordinal, &single}) {
    std::mt19937_64 engine(1);
    BayesOptions options;
    options.initial_points = 2;
    BayesianSearch bayes(*s, engine, options);
    const auto trials = run(bayes, [](const Config& c) {
      double t = 1e-3;
      for (const auto& [_, v] : c.values()) t *= 1.0 + 0.1 * static_cast<double>(v % 7);
      return testing::ok_trial(c, t);
    }, 100);
    CHECK(trials.size() == s->enumerate().size());
    const auto configs = configs_of(trials);
    CHECK(std::set<Config>(configs.begin(), configs.end()).size() == configs.size());
  }
}

TEST_CASE("the hedge portfolio and per-step refits stay valid, unique and deterministic") {
  const Space s = testing::medium_space();
  BayesOptions options;
  options.acquisition = BayesOptions::Acquisition::hedge;
  options.refit_every_below = 30;
  std::mt19937_64 e1(3), e2(3);
  BayesianSearch a(s, e1, options), b(s, e2, options);
  const auto ra = configs_of(run(a, bowl, 40));
  CHECK(ra == configs_of(run(b, bowl, 40)));
  std::set<Config> unique(ra.begin(), ra.end());
  CHECK(unique.size() == ra.size());
  for (const Config& c : ra) CHECK(s.is_valid(c));
  // It still finds the bowl's bottom: within 5% of the best time.
  const Config optimum{{"block_size", 256}, {"items", 4}, {"padding", 2}, {"packing", 1}, {"bank_mode", 1}};
  double best = 1e300;
  for (const Config& c : ra) best = std::min(best, testing::bowl_time(c));
  CHECK(best <= 1.05 * testing::bowl_time(optimum));
}

TEST_CASE("with a prior mean, the prior's argmin is proposed first, and near-ties are drawn per seed") {
  const Space s = testing::medium_space();
  const Config optimum{{"block_size", 256}, {"items", 4}, {"padding", 2}, {"packing", 1}, {"bank_mode", 1}};
  for (std::uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 engine(seed);
    BayesOptions options;
    options.prior_tie_tolerance = 0.0; // the exact argmin
    options.prior_mean = [](const Config& c) { return std::log(testing::bowl_time(c)); };
    BayesianSearch bayes(s, engine, options);
    const auto first = bayes.next();
    REQUIRE(first.has_value());
    CHECK(*first == optimum);
  }
  // A prior that only knows packing = float2 is faster, and whose
  // predictions for float2 differ by 0.5 % (within the default 1 % band):
  // the first proposal is one of the 230 float2 configs, drawn from the
  // engine (same seed, same pick).
  auto first_with_tied_prior = [&](std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    BayesOptions options;
    options.prior_mean = [](const Config& c) {
      return c.at("packing") == 1 ? -9.0 + (c.at("items") == 1 ? 0.0 : 0.005) : -8.0;
    };
    BayesianSearch bayes(s, engine, options);
    return *bayes.next();
  };
  std::set<Config> firsts;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const Config c = first_with_tied_prior(seed);
    CHECK(c.at("packing") == 1);
    CHECK(c == first_with_tied_prior(seed));
    firsts.insert(c);
  }
  CHECK(firsts.size() > 1);
}

TEST_CASE("with a prior mean, the first batch tries the prior's fastest fraction, then the whole space") {
  const Space s = testing::medium_space(); // 5 axes: a first batch of max(3, 5 + 1) = 6
  const auto configs = s.enumerate();
  std::vector<double> times;
  for (const Config& c : configs) times.push_back(testing::bowl_time(c));
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t tenth = (configs.size() + 9) / 10;
  const double fastest_tenth = sorted[tenth - 1];
  std::mt19937_64 engine(5);
  BayesOptions options;
  options.prior_design_fraction = 0.1;
  options.prior_mean = [](const Config& c) { return std::log(testing::bowl_time(c)); };
  BayesianSearch bayes(s, engine, options);
  // The argmin, then ceil(5 / 2) = 3 points among the fastest tenth, then a
  // space-filling batch of 5 over the whole space.
  std::vector<Config> batch;
  for (int i = 0; i < 9; ++i) {
    const auto c = bayes.next();
    REQUIRE(c.has_value());
    batch.push_back(*c);
  }
  for (int i = 0; i < 4; ++i) CHECK(testing::bowl_time(batch[static_cast<std::size_t>(i)]) <= fastest_tenth);
  int outside = 0;
  for (int i = 4; i < 9; ++i) outside += testing::bowl_time(batch[static_cast<std::size_t>(i)]) > fastest_tenth;
  CHECK(outside >= 3); // spread over the space, not the prior's favourites
  CHECK(std::set<Config>(batch.begin(), batch.end()).size() == batch.size());
  for (double bad : {0.0, -0.5, 1.5}) {
    BayesOptions wrong = options;
    wrong.prior_design_fraction = bad;
    CHECK_THROWS_AS(BayesianSearch(s, engine, wrong), std::invalid_argument);
  }
}

TEST_CASE("a wrong prior mean still converges, with valid configs only and no repeats") {
  const Space s = testing::medium_space();
  const double optimum_time = testing::bowl_time(
      Config{{"block_size", 256}, {"items", 4}, {"padding", 2}, {"packing", 1}, {"bank_mode", 1}});
  // Inverted: the prior ranks the optimum among the slowest configs, and
  // predicts the slowest ones fastest. Failures (items == 8 with 1024
  // threads) exercise the feasibility model next to it.
  auto objective = [](const Config& c) {
    if (c.at("block_size") == 1024 && c.at("items") >= 2) return testing::failed_trial(c);
    return testing::ok_trial(c, testing::bowl_time(c));
  };
  std::size_t reached = 0;
  for (std::uint64_t seed : {1, 2, 3}) {
    std::mt19937_64 engine(seed);
    BayesOptions options;
    options.prior_mean = [](const Config& c) { return -std::log(testing::bowl_time(c)); };
    BayesianSearch bayes(s, engine, options);
    const auto trials = run(bayes, objective, 80);
    std::set<Config> unique;
    double best = 1e300;
    for (std::size_t i = 0; i < trials.size(); ++i) {
      CHECK(s.is_valid(trials[i].config));
      CHECK(unique.insert(trials[i].config).second);
      if (trials[i].ok()) best = std::min(best, *trials[i].time_s);
      if (best <= 1.05 * optimum_time && !reached) reached = i + 1;
    }
    CHECK(best <= 1.05 * optimum_time);
  }
  MESSAGE("inverted prior: within 5% of the optimum after " << reached << " evaluations (seed 1; 460 configs)");
}

TEST_CASE("bayes with a prior mean is deterministic for a seed") {
  const Space s = testing::medium_space();
  BayesOptions options;
  options.prior_mean = [](const Config& c) { return std::log(testing::bowl_time(c)) + 0.2 * static_cast<double>(c.at("padding")); };
  std::mt19937_64 e1(11), e2(11);
  BayesianSearch a(s, e1, options), b(s, e2, options);
  CHECK(configs_of(run(a, bowl, 25)) == configs_of(run(b, bowl, 25)));
}

namespace {

// Keeps `batch` proposals outstanding and observes them in a seeded random
// order (workers of uneven speed), until `evaluations` trials or exhaustion.
std::vector<Trial> run_batched(BayesianSearch& bayes, const std::function<Trial(const Config&)>& f,
                               std::size_t evaluations, std::size_t batch, std::uint64_t order_seed) {
  std::mt19937_64 order(order_seed);
  std::vector<Config> outstanding;
  std::vector<Trial> trials;
  bool exhausted = false;
  while (trials.size() < evaluations) {
    while (!exhausted && outstanding.size() < batch) {
      auto c = bayes.next();
      if (!c) exhausted = true;
      else outstanding.push_back(*c);
    }
    if (outstanding.empty()) break;
    const std::size_t k = static_cast<std::size_t>(order() % outstanding.size());
    trials.push_back(f(outstanding[k]));
    outstanding.erase(outstanding.begin() + static_cast<std::ptrdiff_t>(k));
    bayes.observe(trials.back());
  }
  return trials;
}

} // namespace

TEST_CASE("batch proposals never repeat a point or propose an invalid one, observed in any order") {
  const Space s = testing::small_space();
  auto half_fail = [](const Config& c) {
    return c.at("items") == 4 ? testing::failed_trial(c)
                              : testing::ok_trial(c, 1e-3 * static_cast<double>(c.at("block_size") * (1 + c.at("layout"))));
  };
  for (const auto fantasy : {BayesOptions::Fantasy::kriging_believer, BayesOptions::Fantasy::constant_liar}) {
    for (const std::size_t batch : {2, 4, 8}) {
      std::mt19937_64 engine(batch);
      BayesOptions options;
      options.batch_size = batch;
      options.fantasy = fantasy;
      BayesianSearch bayes(s, engine, options);
      CHECK(bayes.lookahead() == batch);
      const auto trials = run_batched(bayes, half_fail, 1000, batch, 100 + batch);
      CHECK(trials.size() == 22); // ran the space dry
      std::set<Config> unique;
      for (const auto& t : trials) {
        CHECK(s.is_valid(t.config));
        CHECK(unique.insert(t.config).second);
      }
      CHECK(bayes.outstanding() == 0);
      CHECK_FALSE(bayes.next().has_value());
    }
  }
}

TEST_CASE("a batch spreads out: outstanding proposals are not proposed again, nor piled next to each other") {
  const Space s = testing::medium_space();
  std::mt19937_64 engine(3);
  BayesOptions options;
  options.batch_size = 4;
  BayesianSearch bayes(s, engine, options);
  // Past the first batch, propose 4 at once with nothing observed in between.
  const auto seed = run(bayes, bowl, 15);
  std::set<Config> batch;
  for (int k = 0; k < 4; ++k) {
    const auto c = bayes.next();
    REQUIRE(c.has_value());
    CHECK(batch.insert(*c).second);
    for (const auto& t : seed) CHECK(t.config != *c);
  }
  CHECK(bayes.outstanding() == 4);
  for (const Config& c : batch) bayes.observe(bowl(c));
  CHECK(bayes.outstanding() == 0);
}

TEST_CASE("batch size 1 is the sequential search, and the options are checked") {
  const Space s = testing::medium_space();
  std::mt19937_64 e1(5), e2(5);
  BayesOptions one;
  one.batch_size = 1;
  BayesianSearch a(s, e1), b(s, e2, one);
  CHECK(configs_of(run(a, bowl, 30)) == configs_of(run(b, bowl, 30)));
  BayesOptions zero;
  zero.batch_size = 0;
  CHECK_THROWS_AS(BayesianSearch(s, e1, zero), std::invalid_argument);
  zero = {};
  zero.candidate_pool = 0;
  CHECK_THROWS_AS(BayesianSearch(s, e1, zero), std::invalid_argument);
}

TEST_CASE("bayes searches a 10^7 space from samples: valid, distinct, holds only what it proposed, and improves") {
  const Space s = testing::huge_space();
  auto f = [](const Config& c) { return testing::ok_trial(c, testing::huge_bowl_time(c)); };
  std::mt19937_64 engine(1);
  BayesOptions options;
  options.batch_size = 4;
  options.candidate_pool = 1024;
  BayesianSearch bayes(s, engine, options);
  CHECK(bayes.candidates() < 50); // the first batch, not the space
  const auto trials = run_batched(bayes, f, 60, 4, 1);
  REQUIRE(trials.size() == 60);
  std::set<Config> unique;
  double first_batch_best = 1.0, best = 1.0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    CHECK(s.is_valid(trials[i].config));
    CHECK(unique.insert(trials[i].config).second);
    if (i < 14) first_batch_best = std::min(first_batch_best, *trials[i].time_s);
    best = std::min(best, *trials[i].time_s);
  }
  CHECK(bayes.candidates() <= 64);
  MESSAGE("10^7 space: best after the first batch " << first_batch_best / 1e-4 << " x optimum, after 60 "
                                                     << best / 1e-4 << " x");
  CHECK(best < first_batch_best);
  CHECK(best < 1.1e-4); // within 10 % of the optimum, among 8.5 million valid configs
  // A config it never proposed can be observed (a resumed run, another worker).
  Config elsewhere = s.at_index(12345);
  REQUIRE(s.is_valid(elsewhere));
  if (unique.count(elsewhere) == 0) CHECK_NOTHROW(bayes.observe(f(elsewhere)));
  CHECK_THROWS_AS(bayes.observe(f(Config{{"a", 10}, {"b", 10}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 0}})),
                  std::invalid_argument);
}

TEST_CASE("bayes on a large space with few valid configs holds them all and runs it dry") {
  Space s;
  const std::vector<std::int64_t> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) s.add(Axis::ordinal(name, ten)); // 10^6
  s.require((axis("c") + axis("d") + axis("e") + axis("f") <= 4).because("only the corner"));
  s.require((axis("a") <= 2).because("only the corner")); // a in {1, 2}, c = d = e = f = 1: 20 of 10^6
  std::mt19937_64 engine(2);
  BayesianSearch bayes(s, engine);
  CHECK(bayes.candidates() == 20); // the first sample drained the space
  const auto trials = run(bayes, [](const Config& c) { return testing::ok_trial(c, 1e-3 * static_cast<double>(c.at("b"))); }, 200);
  CHECK(trials.size() == 20);
  CHECK(bayes.candidates() == 20);
  CHECK_FALSE(bayes.next().has_value());
}

TEST_CASE("bayes lists a sparse space's valid configs once instead of drawing each sample from millions") {
  // 100 valid configs in a cross product of 10^6, a sample of 80: the first
  // draw passes half the cross product, so it goes on to the end and keeps
  // all 100 (without that, every proposal drew again through most of it).
  Space s;
  const std::vector<std::int64_t> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) s.add(Axis::ordinal(name, ten)); // 10^6
  s.require((axis("c") + axis("d") + axis("e") + axis("f") <= 4).because("only the corner")); // 100 valid
  std::mt19937_64 engine(3);
  BayesOptions options;
  options.candidate_pool = 80;
  BayesianSearch bayes(s, engine, options);
  CHECK(bayes.candidates() == 100);
  const auto trials = run(
      bayes, [](const Config& c) { return testing::ok_trial(c, 1e-3 * static_cast<double>(c.at("a") + c.at("b"))); }, 30);
  CHECK(trials.size() == 30);
  CHECK(bayes.candidates() == 100); // scored whole: no sample drawn and dropped since
}
