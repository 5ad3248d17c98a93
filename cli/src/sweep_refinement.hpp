#pragma once
// Where a sweep measures one more size: between two neighbouring sizes whose
// kept configurations (best and runner-ups, as the profile keeps them) give
// the launcher's rule (size_rule.hpp) nothing to stand on at their log
// midpoint: no configuration both timed, or an expected loss above 5 %. The
// best configuration changes abruptly there (the fdtd's z-chunks: 8 at
// 360x360x210, 1 at 480x480x256, 4 at 416x416x232, which neither kept), and
// only a measurement at the midpoint says what holds between them.
#include <memtune/output/tuning_result.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memtune::cli {

// Each size's best configuration, as saved (Space::config_to_json); sizes
// where nothing succeeded give none. A sweep's profile entries keep these
// beyond their runner-ups where they timed them, and a new size measures the
// nearest ones first: so the per-call rule between two sizes has a
// configuration timed at both (the lower size's best at the upper size) where
// their own fastest have nothing in common.
[[nodiscard]] std::vector<nlohmann::json> best_configs(const std::vector<const TuningResult*>& done);

// The log midpoint (each swept variable's geometric mean, rounded) of the
// neighbouring pair of `done` (ordered by size) whose midpoint pick is
// weakest (timed at one neighbour only first, then the larger expected
// loss), among pairs that qualify and whose midpoint is a new size; nullopt
// when none does. `runner_ups`: what each size's profile entry keeps, with
// the best_configs of `done`.
[[nodiscard]] std::optional<std::map<std::string, std::int64_t>> refinement_point(
    const std::vector<const TuningResult*>& done, const std::vector<std::string>& swept, std::size_t runner_ups);

inline constexpr double kRefineAboveLoss = 0.05; // the bar of a swept size

} // namespace memtune::cli
