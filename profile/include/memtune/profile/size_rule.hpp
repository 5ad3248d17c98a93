#pragma once
// The per-call rule a sweep leaves in a profile store: for a problem between
// two swept sizes, the configuration with the least interpolated time.
//
// Each neighbouring entry holds the times of its best configuration and its
// runner-ups. For every configuration both neighbours timed, its time at the
// call's size is interpolated on a log-log scale,
//
//   log t(c) = (1 - w) log t_lower(c) + w log t_upper(c),
//   w = where the call's log size lies between the two (0 at lower, 1 at upper),
//
// and the least is the pick. Its expected loss is interpolated the same way
// from what it loses at each neighbour against that size's best,
//   loss = (1 - w) (t_lower(pick) / t_lower(best) - 1) + w (t_upper(pick) / t_upper(best) - 1),
// so a pick that is best at both sizes states 0.
//
// With the model (a PredictAt, and resources kept for every configuration
// ranked), the time at the call's size is the model's there, corrected by
// what each neighbour measured against what the model predicts for it,
//
//   t(c) = p_call(c) (t_lower(c) / p_lower(c))^(1 - w) (t_upper(c) / p_upper(c))^w,
//
// (a configuration one neighbour did not keep takes the other's correction,
// but no less than that neighbour's slowest kept time over the model's: it
// was slower there than everything kept). The model's pick replaces the pick
// of the times alone only when the model puts the latter more than 3 %
// behind it at the call's size (a measurement's run-to-run spread), and by
// more than the neighbours measured the model's pick losing against the
// times' pick: otherwise the configuration both neighbours measured well stands.
// Times interpolated alone miss what changes between the sizes by steps: how
// many waves of blocks fill the SMs, how many chunks a column splits into. The
// fdtd between 360x360x210 and 480x480x256 (H200) kept the larger size's
// one-chunk ring, which fills 0.69 of a wave at 416x416x232: 1.196x that
// size's best interpolated alone, 1.008x with the model (docs/sweep.md).
//
// A configuration only one
// neighbour kept (each keeps its best and runner-ups), and which is no
// duplicate of one the other kept, was slower, at the other, than that one's
// slowest kept time: its loss there takes that lower
// bound (and is stated "at least"), and it is ranked at slowest x slowest /
// fastest kept, as far beyond the list as the list spans, so that a bound
// from a tight list does not outrank configurations both neighbours timed.
//
//   SizePick p = *interpolate_sizes(entries, {{"n", 3000000}, {"taps", 21}}, {"n"});
//   config_text(p.config) == "block_size=256 packing=1"; p.expected_loss == 0.012
#include <memtune/description/problem.hpp>
#include <memtune/profile/profile_store.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

struct SizePick {
  nlohmann::json config;       // as the entries hold it (Space::config_to_json)
  ProfileEntry lower, upper;   // the neighbours it was interpolated between
  double position = 0.0;       // w above: 0 at lower, 1 at upper
  double predicted_time_s = 0; // [seconds] the pick's interpolated time
  double expected_loss = 0;    // fraction over the best (0.012: 1.2 % slower), see above
  std::size_t compared = 0;    // configurations both neighbours timed
  bool bounded = false;        // the pick was timed at one neighbour only: its loss is a lower bound
  bool modeled = false;        // the model's corrected time chose it over the times alone (above)
  double model_gain = 0;       // then how far behind it the model puts the times' pick (0.08: 8 %)
};

// The model's time [seconds] for a stored configuration at `problem`, from the
// compiled resources its entry kept with it; nullopt when the model cannot
// say (no model, cannot launch there).
using PredictAt = std::function<std::optional<double>(const nlohmann::json& config, const KernelResources& resources,
                                                      const Problem& problem)>;

// The configuration a problem's space keeps for a stored one: itself where
// it may run there; the same kernel's form where it is a duplicate there
// (search::Space::same_kernel: the fdtd's zfill that gives one z-chunk at that
// size is zfill 0); nullopt where it may not run (a float4 load needs rows
// that are a multiple of 4: the best of 8616 rows is not a configuration for
// 10289). Empty: every one runs as it is.
using KeptAtProblem = std::function<std::optional<nlohmann::json>(const nlohmann::json& config, const Problem& problem)>;

// The pick for `problem` from `entries` (one device, template and set of
// non-size variables: ProfileStore::matches' hits of one kind). The
// neighbours are the nearest pair (sum of |log size ratio| over `size_keys`)
// whose sizes enclose the problem's on every size variable, differing in at
// least one. Only configurations `kept` at the call's problem and at both
// neighbours' are ranked: one a neighbour could not run has no time there,
// not even the lower bound above (a float2 ring that wins at 64^3 is no
// candidate at 74^3 by way of 85^3, where it cannot run). A configuration
// one neighbour kept that is a duplicate at the other takes the time its
// same kernel measured there (the fdtd's zfill 1, two chunks at the smaller
// size, is zfill 0 at the larger). The expected loss
// is still against each neighbour's own best. With `predict`, the ranking is
// the model's corrected time when it predicts every configuration ranked at
// all three sizes, else the times interpolated alone. nullopt when no pair
// encloses the problem or no configuration the neighbours kept may run at all three (the
// caller then takes the nearest entry).
[[nodiscard]] std::optional<SizePick> interpolate_sizes(const std::vector<ProfileEntry>& entries,
                                                        const Problem& problem,
                                                        const std::vector<std::string>& size_keys,
                                                        const KeptAtProblem& kept = {},
                                                        const PredictAt& predict = {});

// "interpolated between n=1048576 and n=4194304 (w 0.40, 6 configurations in
// common): expected loss 1.2 %"; a pick the model chose adds ", the model's
// time here corrected by theirs" after the sizes and " there; here the model
// puts the times' pick 8.1 % behind it" at the end.
[[nodiscard]] std::string describe(const SizePick& pick, const std::vector<ProblemParameter>& parameters = {});

// The rule for a swept group as people read it: one row per pair of
// neighbouring sizes (sorted by size), with the pick at their log midpoint.
struct SizeRuleRow {
  Problem lower, upper;
  nlohmann::json lower_best, upper_best; // each size's own best
  std::optional<SizePick> midpoint;      // nullopt: an entry without a time
};
[[nodiscard]] std::vector<SizeRuleRow> size_rule_rows(std::vector<ProfileEntry> group,
                                                      const std::vector<std::string>& size_keys,
                                                      const KeptAtProblem& kept = {}, const PredictAt& predict = {});

} // namespace memtune
