#include "sweep_refinement.hpp"

#include <memtune/profile/profile_store.hpp>
#include <memtune/profile/size_rule.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtune::cli {
namespace {

// What the size's profile entry keeps for the rule (make_profile_entry's
// best and runner-ups), without its rationale.
std::optional<ProfileEntry> kept(const TuningResult& r, std::size_t runner_ups) {
  const auto rank = r.ranking();
  if (rank.empty()) return std::nullopt;
  ProfileEntry e;
  e.problem = r.problem;
  e.config = r.space.config_to_json(r.evaluations[rank.front()].config);
  e.time_s = r.evaluations[rank.front()].timing->median_s;
  for (std::size_t i = 1; i < rank.size() && i <= runner_ups; ++i) {
    const Evaluation& x = r.evaluations[rank[i]];
    e.runner_ups.push_back({{"config", r.space.config_to_json(x.config)}, {"time_s", x.timing->median_s}});
  }
  return e;
}

} // namespace

std::optional<std::map<std::string, std::int64_t>> refinement_point(const std::vector<const TuningResult*>& done,
                                                                    const std::vector<std::string>& swept,
                                                                    std::size_t runner_ups) {
  std::optional<std::map<std::string, std::int64_t>> chosen;
  double weakest = -1; // bounded picks rank above every loss
  for (std::size_t i = 0; i + 1 < done.size(); ++i) {
    const TuningResult& a = *done[i];
    const TuningResult& b = *done[i + 1];
    std::map<std::string, std::int64_t> mid;
    Problem problem = a.problem;
    bool new_size = false;
    for (const std::string& name : swept) {
      const auto lo = a.problem.at(name), hi = b.problem.at(name);
      const auto m = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi))));
      mid[name] = m;
      problem[name] = m;
      new_size = new_size || (m != lo && m != hi);
    }
    if (!new_size) continue; // neighbours one apart: nothing lies between
    const auto a_kept = kept(a, runner_ups), b_kept = kept(b, runner_ups);
    if (!a_kept || !b_kept) continue; // a size where nothing succeeded leaves no entry
    const std::vector<ProfileEntry> pair{*a_kept, *b_kept};
    // A configuration is valid at a neighbour when its space holds it; at the
    // midpoint it is taken as valid there too (it will be measured).
    const ValidAtProblem valid = [&](const nlohmann::json& saved, const Problem& at) {
      const search::Space* space = at == a.problem ? &a.space : at == b.problem ? &b.space : nullptr;
      if (!space) return true;
      try {
        return !space->violation(space->config_from_saved_json(saved));
      } catch (const std::invalid_argument&) {
        return false;
      }
    };
    const auto pick = interpolate_sizes(pair, problem, swept, valid);
    const double weakness = !pick ? 2.0 : pick->bounded ? 1.0 + pick->expected_loss : pick->expected_loss;
    if (pick && !pick->bounded && pick->expected_loss <= kRefineAboveLoss) continue;
    if (weakness > weakest) {
      weakest = weakness;
      chosen = mid;
    }
  }
  return chosen;
}

} // namespace memtune::cli
