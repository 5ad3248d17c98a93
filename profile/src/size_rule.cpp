#include <memtune/profile/size_rule.hpp>

#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/io/number_text.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace memtune {
namespace {

// Every configuration an entry timed, by its canonical JSON text (nlohmann
// objects keep their keys sorted, so equal configurations print equal).
std::map<std::string, double> timed(const ProfileEntry& e) {
  std::map<std::string, double> out;
  if (e.time_s > 0) out.emplace(e.config.dump(), e.time_s);
  for (const auto& r : e.runner_ups) {
    const auto c = r.find("config");
    const auto t = r.find("time_s");
    if (c == r.end() || t == r.end() || !t->is_number() || t->get<double>() <= 0) continue;
    out.emplace(c->dump(), t->get<double>()); // the best's own time wins a duplicate
  }
  return out;
}

double log_of(const Problem& p, const std::string& key) {
  const auto it = p.find(key);
  return it == p.end() || it->second <= 0 ? 0.0 : std::log(static_cast<double>(it->second));
}

// Sizes interpolate on a log scale: an entry with a size of 0 or less (a
// hand-edited store) has no place on it and takes no part in a rule.
bool on_log_scale(const ProfileEntry& e, const std::vector<std::string>& keys) {
  return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) {
    const auto it = e.problem.find(k);
    return it != e.problem.end() && it->second > 0;
  });
}

double distance(const Problem& a, const Problem& b, const std::vector<std::string>& keys) {
  double d = 0;
  for (const auto& k : keys) d += std::abs(log_of(a, k) - log_of(b, k));
  return d;
}

// w of `p` between `a` and `b` (the projection on the segment in log sizes),
// or nullopt when p is not inside their box on every key or a == b.
std::optional<double> position(const Problem& p, const Problem& a, const Problem& b,
                               const std::vector<std::string>& keys) {
  double dot = 0, norm = 0;
  for (const auto& k : keys) {
    const double la = log_of(a, k), lb = log_of(b, k), lp = log_of(p, k);
    if (lp < std::min(la, lb) - 1e-12 || lp > std::max(la, lb) + 1e-12) return std::nullopt;
    dot += (lp - la) * (lb - la);
    norm += (lb - la) * (lb - la);
  }
  if (norm <= 0) return std::nullopt;
  return dot / norm;
}

// Run to run, two measurements of one configuration differ by up to about
// 3 % (docs/model.md counts pairs further apart than that as ordered).
constexpr double kModelMargin = 0.03;

// Each kept configuration's resources, by the same key as timed(): what the
// model needs to predict it elsewhere (absent: none kept). A runner-up's
// "resources" were range-checked when the store was read.
std::map<std::string, KernelResources> kept_resources(const ProfileEntry& e) {
  std::map<std::string, KernelResources> out;
  if (e.resources) out.emplace(e.config.dump(), *e.resources);
  for (const auto& r : e.runner_ups) {
    const auto c = r.find("config");
    const auto res = r.find("resources");
    if (c != r.end() && res != r.end()) out.emplace(c->dump(), kernel_resources_from_json(io::JsonFields(*res)));
  }
  return out;
}

// The model's time of every configuration in `keys` at the three sizes, or
// nullopt when it misses one: a ranking half modeled would compare unlike times.
using ThreeTimes = std::array<double, 3>; // lower, upper, the call's
std::optional<std::map<std::string, ThreeTimes>> predict_all(const std::vector<std::string>& keys,
                                                             const ProfileEntry& lower, const ProfileEntry& upper,
                                                             const Problem& call, const PredictAt& predict) {
  if (!predict || keys.empty()) return std::nullopt;
  auto resources = kept_resources(lower);
  resources.merge(kept_resources(upper)); // the same kernel at either size
  std::map<std::string, ThreeTimes> out;
  for (const std::string& key : keys) {
    const auto r = resources.find(key);
    if (r == resources.end()) return std::nullopt;
    const nlohmann::json config = nlohmann::json::parse(key);
    ThreeTimes t{};
    const Problem* at[3] = {&lower.problem, &upper.problem, &call};
    for (int i = 0; i < 3; ++i) {
      const auto p = predict(config, r->second, *at[i]);
      if (!p || !(*p > 0) || !std::isfinite(*p)) return std::nullopt;
      t[i] = *p;
    }
    out.emplace(key, t);
  }
  return out;
}

std::optional<SizePick> pick_between(const ProfileEntry& lower, const ProfileEntry& upper, double w,
                                     const Problem* call = nullptr, const KeptAtProblem& kept = {},
                                     const PredictAt& predict = {}) {
  const auto tl = timed(lower), tu = timed(upper);
  if (tl.empty() || tu.empty()) return std::nullopt;
  const auto by_time = [](const auto& x, const auto& y) { return x.second < y.second; };
  const double best_l = std::min_element(tl.begin(), tl.end(), by_time)->second;
  const double best_u = std::min_element(tu.begin(), tu.end(), by_time)->second;
  // A configuration one size did not keep was slower there than every one it
  // kept: its slowest kept time is a lower bound (its loss is stated "at
  // least"). Ranked at that bound it would beat the configurations both sizes
  // timed whenever the kept list is tight (fdtd at 85^3 keeps 17 within 1 %),
  // so it is ranked as far beyond the list as the list spans, slowest x
  // slowest / fastest: each size's own best still wins near its size.
  const double floor_l = std::max_element(tl.begin(), tl.end(), by_time)->second;
  const double floor_u = std::max_element(tu.begin(), tu.end(), by_time)->second;
  const double beyond_l = floor_l * floor_l / best_l, beyond_u = floor_u * floor_u / best_u;
  // A configuration's time at a neighbour: its own, else its same kernel's
  // there (`form`: the form that neighbour's space keeps it in; a duplicate
  // at that size was measured in its kept form).
  const auto time_at = [](const std::map<std::string, double>& times, const std::string& key,
                          const std::optional<nlohmann::json>& form) -> std::optional<double> {
    if (const auto it = times.find(key); it != times.end()) return it->second;
    if (!form) return std::nullopt;
    if (const auto it = times.find(form->dump()); it != times.end()) return it->second;
    return std::nullopt;
  };
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> both;
  for (const auto* times : {&tl, &tu})
    for (const auto& item : *times) {
      if (both.count(item.first)) continue;
      std::optional<nlohmann::json> at_lower, at_upper;
      if (kept) { // only what may run at the call's size and at both neighbours
        const nlohmann::json config = nlohmann::json::parse(item.first);
        at_lower = kept(config, lower.problem);
        at_upper = kept(config, upper.problem);
        if (!at_lower || !at_upper || !kept(config, *call)) continue;
      }
      both[item.first] = {time_at(tl, item.first, at_lower), time_at(tu, item.first, at_upper)};
    }
  std::vector<std::string> keys;
  for (const auto& item : both) keys.push_back(item.first);
  const auto modeled = call ? predict_all(keys, lower, upper, *call, predict) : std::nullopt;
  // Each configuration's time at the call's size: interpolated alone, and
  // (with the model) the model's corrected by the neighbours.
  struct Ranked {
    std::string key;
    bool exact = false;
    double expected_loss = 0, interpolated = 0, modeled = 0;
  };
  std::vector<Ranked> ranked;
  for (const auto& [key, times] : both) {
    Ranked r{key, times.first && times.second};
    const double l = times.first.value_or(floor_l), u = times.second.value_or(floor_u);
    r.expected_loss = (1 - w) * (l / best_l - 1) + w * (u / best_u - 1);
    r.interpolated = std::exp((1 - w) * std::log(times.first.value_or(beyond_l)) +
                              w * std::log(times.second.value_or(beyond_u)));
    if (modeled) {
      // Each neighbour's measured / predicted. One that did not keep the
      // configuration measured it slower than its slowest kept (or never
      // timed it): the other's correction, but never below that bound's.
      const ThreeTimes& p = modeled->at(key);
      const double at_l = times.first ? *times.first / p[0] : std::max(*times.second / p[1], floor_l / p[0]);
      const double at_u = times.second ? *times.second / p[1] : std::max(at_l, floor_u / p[1]);
      r.modeled = p[2] * std::exp((1 - w) * std::log(at_l) + w * std::log(at_u));
    }
    ranked.push_back(std::move(r));
  }
  if (ranked.empty()) return std::nullopt; // nothing either kept may run here
  const auto least = [&](double Ranked::*time) {
    return &*std::min_element(ranked.begin(), ranked.end(),
                              [&](const Ranked& a, const Ranked& b) { return a.*time < b.*time; });
  };
  const Ranked* pick = least(&Ranked::interpolated);
  bool by_model = false;
  double model_gain = 0;
  if (modeled) {
    // The model overrides the times alone only where the step it predicts
    // at this size puts the times' pick more than kModelMargin behind its
    // own (within it, the pick both neighbours support by measurement
    // stands), and more than the neighbours measured its own pick losing
    // against the times' pick: a configuration both measured well behind
    // needs a step at least that large to win here, a smaller one is within
    // the model's error (on an H200, a transpose tile both neighbours
    // measured 23-28 % behind their best, taken by the model between them,
    // measured 22 % behind).
    const Ranked* model_pick = least(&Ranked::modeled);
    const double gain = pick->modeled / model_pick->modeled - 1;
    const double measured_deficit = model_pick->expected_loss - pick->expected_loss;
    if (gain > kModelMargin && gain > measured_deficit) {
      model_gain = gain;
      pick = model_pick;
      by_model = true;
    }
  }
  SizePick out;
  out.lower = lower;
  out.upper = upper;
  out.position = w;
  out.compared =
      static_cast<std::size_t>(std::count_if(ranked.begin(), ranked.end(), [](const Ranked& r) { return r.exact; }));
  out.config = nlohmann::json::parse(pick->key);
  out.predicted_time_s = by_model ? pick->modeled : pick->interpolated;
  out.expected_loss = pick->expected_loss;
  out.bounded = !pick->exact;
  out.modeled = by_model;
  out.model_gain = model_gain;
  return out;
}

} // namespace

std::optional<SizePick> interpolate_sizes(const std::vector<ProfileEntry>& entries, const Problem& problem,
                                          const std::vector<std::string>& size_keys, const KeptAtProblem& kept,
                                          const PredictAt& predict) {
  if (size_keys.empty()) return std::nullopt;
  std::optional<std::pair<std::size_t, std::size_t>> best_pair;
  double best_distance = std::numeric_limits<double>::infinity();
  double w = 0;
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = i + 1; j < entries.size(); ++j) {
      if (!on_log_scale(entries[i], size_keys) || !on_log_scale(entries[j], size_keys)) continue;
      const auto at = position(problem, entries[i].problem, entries[j].problem, size_keys);
      if (!at) continue;
      const double d = distance(problem, entries[i].problem, size_keys) + distance(problem, entries[j].problem, size_keys);
      if (d < best_distance) {
        best_distance = d;
        best_pair = {i, j};
        w = *at;
      }
    }
  if (!best_pair) return std::nullopt;
  auto [lo, hi] = *best_pair;
  double size_lo = 0, size_hi = 0;
  for (const auto& k : size_keys) size_lo += log_of(entries[lo].problem, k), size_hi += log_of(entries[hi].problem, k);
  if (size_lo > size_hi) { // lower is the smaller size, whatever the store's order
    std::swap(lo, hi);
    w = 1 - w;
  }
  return pick_between(entries[lo], entries[hi], w, &problem, kept, predict);
}

std::string describe(const SizePick& pick, const std::vector<ProblemParameter>& parameters) {
  const auto text = [&](const Problem& p) { return parameters.empty() ? format_problem(p) : format_problem(p, parameters); };
  std::string s = "interpolated between " + text(pick.lower.problem) + " and " + text(pick.upper.problem) +
                  (pick.modeled ? ", the model's time here corrected by theirs" : "") +
                  number_text(" (w %.2f, ", pick.position) + std::to_string(pick.compared) + " configuration" +
                  (pick.compared == 1 ? "" : "s") + " in common): expected loss " + (pick.bounded ? "at least " : "") +
                  number_text("%.1f %%", 100 * pick.expected_loss);
  // The loss above is the pick's at the two sizes; the model chose it for what it sees between them.
  if (pick.modeled)
    s += number_text(" there; here the model puts the times' pick %.1f %% behind it", 100 * pick.model_gain);
  return s;
}

std::vector<SizeRuleRow> size_rule_rows(std::vector<ProfileEntry> group, const std::vector<std::string>& size_keys,
                                        const KeptAtProblem& kept, const PredictAt& predict) {
  std::erase_if(group, [&](const ProfileEntry& e) { return !on_log_scale(e, size_keys); });
  std::sort(group.begin(), group.end(), [&](const ProfileEntry& a, const ProfileEntry& b) {
    double la = 0, lb = 0;
    for (const auto& k : size_keys) la += log_of(a.problem, k), lb += log_of(b.problem, k);
    return la < lb;
  });
  std::vector<SizeRuleRow> rows;
  for (std::size_t i = 0; i + 1 < group.size(); ++i) {
    SizeRuleRow r;
    r.lower = group[i].problem;
    r.upper = group[i + 1].problem;
    r.lower_best = group[i].config;
    r.upper_best = group[i + 1].config;
    // The log midpoint of the two sizes, for the model's time there.
    Problem midpoint = group[i].problem;
    for (const auto& k : size_keys)
      midpoint[k] = std::llround(std::exp(0.5 * (log_of(group[i].problem, k) + log_of(group[i + 1].problem, k))));
    r.midpoint = pick_between(group[i], group[i + 1], 0.5, &midpoint, kept, predict);
    rows.push_back(std::move(r));
  }
  return rows;
}

} // namespace memtune
