#include "sweep_refinement.hpp"

#include <memtune/profile/profile_store.hpp>
#include <memtune/profile/size_rule.hpp>

#include <algorithm>
#include <cmath>

namespace memtune::cli {

std::vector<nlohmann::json> best_configs(const std::vector<const TuningResult*>& done) {
  std::vector<nlohmann::json> bests;
  for (const TuningResult* r : done)
    if (const auto rank = r->ranking(); !rank.empty())
      bests.push_back(r->space.config_to_json(r->evaluations[rank.front()].config));
  return bests;
}

std::optional<std::map<std::string, std::int64_t>> refinement_point(const std::vector<const TuningResult*>& done,
                                                                    const std::vector<std::string>& swept,
                                                                    std::size_t runner_ups) {
  const std::vector<nlohmann::json> keep = best_configs(done);
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
    if (a.ranking().empty() || b.ranking().empty()) continue; // a size where nothing succeeded leaves no entry
    // What each size's profile entry keeps (its best and runner-ups): what the launcher's rule will read.
    const std::vector<ProfileEntry> pair{make_profile_entry(a, runner_ups, keep),
                                        make_profile_entry(b, runner_ups, keep)};
    // A neighbour's space keeps a configuration as itself or as its same
    // kernel's form; at the midpoint it is taken as it is (it will be measured).
    const KeptAtProblem kept = [&](const nlohmann::json& saved, const Problem& at) -> std::optional<nlohmann::json> {
      const search::Space* space = at == a.problem ? &a.space : at == b.problem ? &b.space : nullptr;
      if (!space) return saved;
      if (const auto config = space->same_kernel_of_saved(saved)) return space->config_to_json(*config);
      return std::nullopt;
    };
    const auto pick = interpolate_sizes(pair, problem, swept, kept);
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
