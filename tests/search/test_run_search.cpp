#include "spaces.hpp"

#include <memtune/search/grid.hpp>
#include <memtune/search/run_search.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <vector>

using namespace memtune::search;

TEST_CASE("run_search evaluates until the space is exhausted and returns the best") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  int calls = 0;
  const auto result = run_search(grid, [&](const Config& c) {
    ++calls;
    if (c.at("layout") == 1 && c.at("items") == 1) return testing::failed_trial(c, "wrong_result");
    return testing::ok_trial(Config{}, 1.0 / static_cast<double>(c.at("block_size") * c.at("items")) +
                                           0.1 * static_cast<double>(c.at("layout")));
  });
  CHECK(calls == 22);
  CHECK(result.trials.size() == 22);
  CHECK(result.stop_reason.empty()); // the strategy ran out: no rule stopped it
  for (std::size_t i = 0; i < 22; ++i) CHECK(result.trials[i].config == s.enumerate()[i]); // config filled in
  REQUIRE(result.best.has_value());
  CHECK(result.best->config.at("block_size") * result.best->config.at("items") == 1024);
  CHECK(result.best->config.at("layout") == 0);
}

TEST_CASE("run_search stops when a rule fires and reports why") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  const auto result = run_search(grid, [](const Config& c) { return testing::ok_trial(c, 1.0); },
                                 StopRules{}.add(EvaluationBudget{5}));
  CHECK(result.trials.size() == 5);
  CHECK(result.stop_reason.find("evaluation budget") != std::string::npos);
  REQUIRE(result.best.has_value());
  CHECK(result.best->config == result.trials.front().config); // first on ties
}

TEST_CASE("run_search with only failures has no best, and failures count for stop rules") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  const auto result = run_search(grid, [](const Config& c) { return testing::failed_trial(c); },
                                 StopRules{}.add(NoImprovement{4}));
  CHECK(result.trials.size() == 4);
  CHECK_FALSE(result.best.has_value());
}

namespace {
// Grid order, lookahead 3, and a record of how many proposals were outstanding.
class Spy final : public Strategy {
public:
  explicit Spy(const Space& s) : grid_(s) {}
  std::string name() const override { return "spy"; }
  std::optional<Config> next() override {
    auto c = grid_.next();
    if (c) max_outstanding = std::max(max_outstanding, ++outstanding);
    return c;
  }
  void observe(const Trial&) override { --outstanding; }
  std::size_t lookahead() const override { return 3; }
  std::size_t outstanding = 0, max_outstanding = 0;

private:
  GridSearch grid_;
};
} // namespace

TEST_CASE("run_search with workers keeps min(workers, lookahead) proposals outstanding, observed oldest first") {
  const Space s = testing::small_space();
  for (const std::size_t workers : {1, 2, 8}) {
    Spy spy(s);
    const auto result = run_search(spy, [](const Config& c) { return testing::ok_trial(c, 1.0); }, {}, workers);
    CHECK(spy.max_outstanding == std::min<std::size_t>(workers, 3));
    CHECK(spy.outstanding == 0);
    REQUIRE(result.trials.size() == 22);
    for (std::size_t i = 0; i < 22; ++i) CHECK(result.trials[i].config == s.enumerate()[i]); // FIFO: grid order
  }
  // The budget caps proposals: nothing is proposed that will not be evaluated.
  Spy budgeted(s);
  const auto capped = run_search(budgeted, [](const Config& c) { return testing::ok_trial(c, 1.0); },
                                 StopRules{}.add(EvaluationBudget{5}), 3);
  CHECK(capped.trials.size() == 5);
  CHECK(budgeted.outstanding == 0);
  // Another rule stops at the 4th trial; the other workers' two still end and are kept.
  Spy stopped(s);
  const auto patience = run_search(stopped, [](const Config& c) { return testing::ok_trial(c, 1.0); },
                                   StopRules{}.add(NoImprovement{3}), 3);
  CHECK(patience.trials.size() == 6);
  CHECK(patience.stop_reason.find("no improvement in 3") != std::string::npos);
  CHECK(stopped.outstanding == 0);
}

namespace {
// Grid order, but after its first proposal it holds back (nullopt) until it
// has observed that proposal's trial.
class HoldsBack final : public Strategy {
public:
  HoldsBack(const Space& s, bool later) : grid_(s), later_(later) {}
  std::string name() const override { return "holds back"; }
  std::optional<Config> next() override {
    if (proposed_ && !observed_) {
      ++held;
      return std::nullopt;
    }
    proposed_ = true;
    return grid_.next();
  }
  void observe(const Trial&) override { observed_ = true; }
  std::size_t lookahead() const override { return 4; }
  bool may_propose_later() const override { return later_; }
  std::size_t held = 0;

private:
  GridSearch grid_;
  bool later_;
  bool proposed_ = false, observed_ = false;
};
} // namespace

TEST_CASE("run_search asks a strategy that may propose later again after each observation") {
  const Space s = testing::small_space();
  for (const bool later : {false, true}) {
    CAPTURE(later);
    HoldsBack strategy(s, later);
    const auto result = run_search(strategy, [](const Config& c) { return testing::ok_trial(c, 1.0); }, {}, 2);
    CHECK(strategy.held == 1);
    // By default a nullopt is final: the one trial outstanding ends the search.
    REQUIRE(result.trials.size() == (later ? 22U : 1U));
    for (std::size_t i = 0; i < result.trials.size(); ++i) CHECK(result.trials[i].config == s.enumerate()[i]);
    CHECK(result.stop_reason.empty());
  }
}

TEST_CASE("run_search with a budget of 0 proposes nothing") {
  const Space s = testing::small_space();
  Spy spy(s);
  const auto result = run_search(spy, [](const Config& c) { return testing::ok_trial(c, 1.0); },
                                 StopRules{}.add(EvaluationBudget{0}), 2);
  CHECK(result.trials.empty());
  CHECK(spy.max_outstanding == 0);
  CHECK(result.stop_reason.find("evaluation budget of 0") != std::string::npos);
}

namespace {

// An evaluator of `capacity` slots whose finish() ends the newest evaluation
// in flight first (or the oldest), with a time per config from `time_of`. It
// returns trials with an empty config: the loop fills in the proposed one.
class Scripted final : public Evaluator {
public:
  std::size_t slots = 1;
  bool newest_first = true;
  std::function<double(const Config&)> time_of = [](const Config&) { return 1.0; };
  std::optional<std::uint64_t> lose_at_start; // this ticket's start throws EvaluatorLost
  std::optional<std::size_t> lose_at_finish;  // the finish() call of this number (1-based) throws

  std::map<std::uint64_t, Config> proposals;
  std::vector<std::uint64_t> started, ended;
  std::size_t most_outstanding = 0, most_in_flight = 0;

  [[nodiscard]] std::size_t capacity() const override { return slots; }
  void proposed(std::uint64_t ticket, const Config& config) override {
    CHECK(ticket == proposals.size()); // tickets count proposals from 0
    proposals.emplace(ticket, config);
    most_outstanding = std::max(most_outstanding, proposals.size() - ended.size());
  }
  std::optional<Trial> start(std::uint64_t ticket, const Config& config) override {
    CHECK(config == proposals.at(ticket));
    if (ticket == lose_at_start) throw EvaluatorLost("lost at start");
    started.push_back(ticket);
    in_flight_.push_back(ticket);
    most_in_flight = std::max(most_in_flight, in_flight_.size());
    return std::nullopt;
  }
  std::pair<std::uint64_t, Trial> finish() override {
    REQUIRE_FALSE(in_flight_.empty());
    const std::uint64_t ticket = newest_first ? in_flight_.back() : in_flight_.front();
    if (newest_first) in_flight_.pop_back();
    else in_flight_.pop_front();
    if (++finishes_ == lose_at_finish) throw EvaluatorLost("lost at finish");
    ended.push_back(ticket);
    return {ticket, testing::ok_trial(Config{}, time_of(proposals.at(ticket)))};
  }

private:
  std::deque<std::uint64_t> in_flight_;
  std::size_t finishes_ = 0;
};

// Every trial's config is the one proposed under the ticket that ended.
void check_configs(const SearchResult& result, const Scripted& evaluator) {
  REQUIRE(result.trials.size() == evaluator.ended.size());
  for (std::size_t i = 0; i < result.trials.size(); ++i)
    CHECK(result.trials[i].config == evaluator.proposals.at(evaluator.ended[i]));
}

} // namespace

TEST_CASE("run_search with an evaluator: trials end out of order, each observed as it ends") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  Scripted evaluator;
  evaluator.slots = 3;
  evaluator.time_of = [](const Config& c) { return static_cast<double>(100 - c.at("block_size") / 64); };
  std::vector<std::uint64_t> seen;
  LoopOptions options;
  options.on_trial = [&](std::uint64_t ticket, const Trial& t) {
    seen.push_back(ticket);
    CHECK(t.config == evaluator.proposals.at(ticket));
  };
  const auto result = run_search(grid, evaluator, {}, options);
  // Three in flight, the newest ends first: tickets 2..21 as each is started, then 1 and 0.
  std::vector<std::uint64_t> expected;
  for (std::uint64_t t = 2; t < 22; ++t) expected.push_back(t);
  expected.push_back(1);
  expected.push_back(0);
  CHECK(evaluator.ended == expected);
  CHECK(seen == expected);
  CHECK(evaluator.most_in_flight == 3);
  CHECK(evaluator.most_outstanding == 3); // ahead 1 raised to one per slot
  check_configs(result, evaluator);
  for (std::size_t i = 0; i < 22; ++i) CHECK(evaluator.proposals.at(i) == s.enumerate()[i]); // proposed in grid order
  CHECK(result.stop_reason.empty());
  REQUIRE(result.best.has_value());
  // The fastest are the four block 512 configs (tickets 18..21); on ties the
  // first to end wins: ticket 18, the 17th trial.
  CHECK(result.best->config == s.enumerate()[18]);
  CHECK(result.best->config == result.trials[16].config);
}

TEST_CASE("run_search keeps proposals outstanding to `ahead`, within the strategy's lookahead") {
  const Space s = testing::small_space();
  {
    GridSearch grid(s);
    Scripted evaluator;
    evaluator.slots = 2;
    LoopOptions options;
    options.ahead = 5;
    const auto result = run_search(grid, evaluator, {}, options);
    CHECK(result.trials.size() == 22);
    CHECK(evaluator.most_outstanding == 5);
    CHECK(evaluator.most_in_flight == 2);
  }
  {
    Spy spy(s); // lookahead 3
    Scripted evaluator;
    evaluator.slots = 2;
    LoopOptions options;
    options.ahead = 10;
    const auto result = run_search(spy, evaluator, {}, options);
    CHECK(result.trials.size() == 22);
    CHECK(spy.max_outstanding == 3);
    CHECK(evaluator.most_outstanding == 3);
    CHECK(spy.outstanding == 0);
  }
}

TEST_CASE("run_search proposes no more than the evaluation budget, however far ahead it may run") {
  const Space s = testing::small_space(); // strategies borrow their space
  GridSearch grid(s);
  Scripted evaluator;
  evaluator.slots = 3;
  LoopOptions options;
  options.ahead = 8;
  const auto result = run_search(grid, evaluator, StopRules{}.add(EvaluationBudget{5}).add(NoImprovement{50}), options);
  CHECK(evaluator.proposals.size() == 5);
  CHECK(result.trials.size() == 5);
  CHECK(result.stop_reason.find("evaluation budget of 5") != std::string::npos);
}

TEST_CASE("run_search stopped by a rule starts nothing new; what is in flight ends and is kept") {
  const Space s = testing::small_space(); // strategies borrow their space
  GridSearch grid(s);
  Scripted evaluator;
  evaluator.slots = 2;
  evaluator.newest_first = false;
  LoopOptions options;
  options.ahead = 6;
  const auto result = run_search(grid, evaluator, StopRules{}.add(NoImprovement{3}), options);
  // The 4th trial stops it with ticket 4 in flight and 5..8 proposed, waiting.
  CHECK(result.stop_reason.find("no improvement in 3") != std::string::npos);
  CHECK(evaluator.proposals.size() == 9);
  CHECK(evaluator.started == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
  CHECK(result.trials.size() == 5);
  check_configs(result, evaluator);
}

namespace {
// Grid order, until the space's deadline passes on the `fails_at`-th next().
class OutOfTime final : public Strategy {
public:
  OutOfTime(const Space& s, std::size_t fails_at) : grid_(s), fails_at_(fails_at) {}
  std::string name() const override { return "out of time"; }
  std::optional<Config> next() override {
    if (++calls_ == fails_at_) throw DeadlinePassed("deadline passed");
    return grid_.next();
  }
  void observe(const Trial&) override {}
  std::size_t lookahead() const override { return 8; }

private:
  GridSearch grid_;
  std::size_t fails_at_;
  std::size_t calls_ = 0;
};
} // namespace

TEST_CASE("run_search stops when the deadline passes in next(), keeping what is in flight") {
  const Space s = testing::small_space();
  for (const std::string reason : {"", "wall-time budget reached while looking"}) {
    OutOfTime strategy(s, 4);
    Scripted evaluator;
    evaluator.slots = 2;
    evaluator.newest_first = false;
    LoopOptions options;
    options.ahead = 3;
    options.deadline_reason = reason;
    const auto result = run_search(strategy, evaluator, {}, options);
    // Tickets 0..2 proposed, 0 and 1 started; the 4th next() throws after ticket 0 ends.
    CHECK(result.stop_reason == (reason.empty() ? "deadline passed" : reason));
    CHECK(evaluator.started == std::vector<std::uint64_t>{0, 1});
    CHECK(result.trials.size() == 2);
    check_configs(result, evaluator);
  }
}

TEST_CASE("run_search with a lost evaluator starts nothing new and keeps what still ends") {
  const Space s = testing::small_space();
  {
    GridSearch grid(s);
    Scripted evaluator;
    evaluator.slots = 2;
    evaluator.newest_first = false;
    evaluator.lose_at_start = 3;
    const auto result = run_search(grid, evaluator, {}, {});
    CHECK(result.lost == "lost at start");
    CHECK(result.stop_reason.empty());
    CHECK(evaluator.started == std::vector<std::uint64_t>{0, 1, 2});
    CHECK(evaluator.ended == std::vector<std::uint64_t>{0, 1, 2}); // 2 was in flight: kept
    check_configs(result, evaluator);
  }
  {
    GridSearch grid(s);
    Scripted evaluator;
    evaluator.slots = 3;
    evaluator.newest_first = false;
    evaluator.lose_at_finish = 2; // ticket 1 is lost with it; 0 ended before, 2 is in flight
    const auto result = run_search(grid, evaluator, {}, {});
    CHECK(result.lost == "lost at finish");
    CHECK(evaluator.started == std::vector<std::uint64_t>{0, 1, 2, 3});
    CHECK(evaluator.ended == std::vector<std::uint64_t>{0, 2, 3});
    check_configs(result, evaluator);
  }
}
