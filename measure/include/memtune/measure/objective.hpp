#pragma once
// What a tuning run minimises: the median time per launch (the default), the
// joules per launch, or their product, the energy-delay product (EDP), which
// weighs both. The search loop hands the strategy this one number
// (search/ stays unit-free); the ranking and the rationale read it too.
#include <memtune/measure/evaluation.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune {

enum class Objective { time, energy, edp };

const char* to_string(Objective objective);                  // "time", "energy", "edp"
Objective objective_from_string(const std::string& text);     // throws std::invalid_argument naming the choices
const char* objective_unit(Objective objective);              // "s", "J", "J*s"
[[nodiscard]] inline bool needs_energy(Objective objective) { return objective != Objective::time; }

// The value minimised for `e`: seconds, joules per launch or joule-seconds;
// nullopt when it failed or lacks what the objective needs.
std::optional<double> objective_value(const Evaluation& e, Objective objective);

// Why the run's energies cannot carry `objective` (nullopt: they can, or the
// objective is time): no candidate's energy was measured, or the pick's
// range over its repeated batches overlaps the time-best's, so the
// difference it would report is within the measurements' own spread.
std::optional<std::string> energy_unresolved(const std::vector<Evaluation>& evaluations, Objective objective);

// What `pick` costs or saves against `time_best` in time and energy:
// "3.0 % slower, 18.0 % fewer joules per launch than the fastest (...)".
// Needs both timed; energy words only where both have it.
std::string tradeoff(const Evaluation& pick, const Evaluation& time_best);

} // namespace memtune
