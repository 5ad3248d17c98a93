#include <memtune/io/number_text.hpp>
#include <memtune/measure/objective.hpp>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace memtune {

const char* to_string(Objective objective) {
  switch (objective) {
  case Objective::time: return "time";
  case Objective::energy: return "energy";
  case Objective::edp: return "edp";
  }
  return "time";
}

Objective objective_from_string(const std::string& text) {
  if (text == "time") return Objective::time;
  if (text == "energy") return Objective::energy;
  if (text == "edp") return Objective::edp;
  throw std::invalid_argument("unknown objective '" + text + "' (time, energy or edp)");
}

const char* objective_unit(Objective objective) {
  switch (objective) {
  case Objective::time: return "s";
  case Objective::energy: return "J";
  case Objective::edp: return "J*s";
  }
  return "s";
}

namespace {
std::optional<double> value_with(const Evaluation& e, Objective objective, double joules) {
  if (!e.ok() || !e.timing) return std::nullopt;
  switch (objective) {
  case Objective::time: return e.timing->median_s;
  case Objective::energy: return e.energy ? std::optional(joules) : std::nullopt;
  case Objective::edp: return e.energy ? std::optional(joules * e.timing->median_s) : std::nullopt;
  }
  return std::nullopt;
}

std::string millijoules(double joules) { return number_text("%.4g mJ", joules * 1e3); }

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100.0 * std::fabs(fraction));
  return text;
}
} // namespace

std::optional<double> objective_value(const Evaluation& e, Objective objective) {
  return value_with(e, objective, e.energy ? e.energy->joules_per_launch : 0.0);
}

std::optional<std::string> energy_unresolved(const std::vector<Evaluation>& evaluations, Objective objective) {
  if (!needs_energy(objective)) return std::nullopt;
  const Evaluation* fastest = nullptr;
  const Evaluation* pick = nullptr;
  for (const Evaluation& e : evaluations) {
    if (!objective_value(e, objective)) continue;
    if (!fastest || e.timing->median_s < fastest->timing->median_s) fastest = &e;
    if (!pick || *objective_value(e, objective) < *objective_value(*pick, objective)) pick = &e;
  }
  if (!pick) {
    std::string why;
    for (const Evaluation& e : evaluations)
      if (!e.energy_error.empty()) {
        why = " (" + e.energy_error + ")";
        break;
      }
    return std::string("no candidate's energy was measured") + why + ", so --objective " + to_string(objective) +
           " has nothing to rank and is refused for this run";
  }
  if (pick == fastest) return std::nullopt; // the same configuration either way: nothing to separate
  // The pick's worst batch against the fastest's best one.
  const double pick_high = *value_with(*pick, objective, pick->energy->max_j);
  const double fastest_low = *value_with(*fastest, objective, fastest->energy->min_j);
  if (pick_high < fastest_low) return std::nullopt;
  return std::string("the energy measurements cannot separate the candidates: the ") + to_string(objective) +
         "-best differs from the fastest by " +
         percent(1.0 - *objective_value(*pick, objective) / *objective_value(*fastest, objective)) +
         ", within the spread of their repeated batches (" + millijoules(pick->energy->min_j) + " to " +
         millijoules(pick->energy->max_j) + " against " + millijoules(fastest->energy->min_j) + " to " +
         millijoules(fastest->energy->max_j) + " per launch); --objective " + to_string(objective) +
         " is refused for this run";
}

std::string tradeoff(const Evaluation& pick, const Evaluation& time_best) {
  if (!pick.timing || !time_best.timing) return "";
  const double dt = pick.timing->median_s / time_best.timing->median_s - 1.0;
  std::string text = std::abs(dt) < 0.0005 ? std::string("as fast as")
                                           : percent(dt) + (dt > 0 ? " slower" : " faster");
  if (pick.energy && time_best.energy && time_best.energy->joules_per_launch > 0) {
    const double de = pick.energy->joules_per_launch / time_best.energy->joules_per_launch - 1.0;
    text += ", " + (std::abs(de) < 0.0005 ? std::string("the same joules per launch")
                                          : percent(de) + (de > 0 ? " more" : " fewer") + " joules per launch");
  }
  return text + " than the fastest measured in this run";
}

} // namespace memtune
