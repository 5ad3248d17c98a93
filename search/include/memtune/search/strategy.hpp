#pragma once
// Search strategies are ask/tell: next() proposes a configuration, observe()
// learns from its outcome. A strategy never proposes an invalid config and
// never proposes the same config twice; it returns nullopt when it has nothing
// left to propose. Randomness comes only from the engine passed in.
#include <memtune/search/config.hpp>
#include <memtune/search/space.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace memtune::search {

// The outcome of evaluating one config: the value minimised, or a failure.
// The value is a time in seconds unless the caller tunes for something else
// (joules, joule-seconds): strategies only compare it, so any positive
// quantity where lower is better works.
struct Trial {
  Config config;
  std::optional<double> time_s; // [seconds] or the caller's objective; nullopt when the candidate failed
  std::string status = "ok";    // "ok" or the failure's status name
  std::string reason;           // why it failed, for people; empty when ok
  [[nodiscard]] bool ok() const { return time_s.has_value(); }
};

class Strategy {
public:
  virtual ~Strategy() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  virtual std::optional<Config> next() = 0;
  virtual void observe(const Trial& trial) = 0;
  // How many proposals may be outstanding before their observations arrive,
  // e.g. one per worker evaluating in parallel. Grid and random do not learn,
  // so callers may run as far ahead as they like (SIZE_MAX: to compile
  // candidates in parallel); bayes returns its batch size and accounts for
  // the outstanding ones when it proposes. Observations may arrive in any
  // order, and for configs proposed elsewhere (a resumed run's journal).
  [[nodiscard]] virtual std::size_t lookahead() const { return 1; }
  // Whether a nullopt from next() may turn into a proposal once the
  // proposals still outstanding are observed: a strategy that holds back
  // until it learns more (one that stops at a cut-off its observations may
  // lift). The loop then asks again after each observation, and ends when
  // next() says nullopt with nothing outstanding. By default nullopt is
  // final: nothing is left to propose.
  [[nodiscard]] virtual bool may_propose_later() const { return false; }
};

} // namespace memtune::search
