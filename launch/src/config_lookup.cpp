#include <memtune/launch/config_lookup.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/io/json_document.hpp>
#include <memtune/io/json_fields.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

namespace memtune {
namespace {

constexpr const char* kPinnedVariable = "MEMTUNE_CONFIG";

// `values` (MEMTUNE_CONFIG's object for this kernel, at `field`) over the
// default configuration: parameters left out keep their default, parameters
// pruned on this GPU are dropped, unknown ones and values off their axis are
// InputErrors naming the parameter.
search::Config overlay(const search::Space& space, const std::function<search::Config()>& base,
                       const nlohmann::json& values, const std::string& field, const std::string& where) {
  const auto is_axis = [&](const std::string& key) {
    return std::any_of(space.axes().begin(), space.axes().end(), [&](const search::Axis& a) { return a.name == key; });
  };
  // A pin of every parameter needs no default (finding one may walk a large
  // space); a partial pin completes the default.
  const bool complete = std::all_of(space.axes().begin(), space.axes().end(),
                                    [&](const search::Axis& a) { return values.contains(a.name); });
  nlohmann::json merged = complete ? nlohmann::json::object() : space.config_to_json(base());
  for (const auto& item : values.items()) {
    const std::string& key = item.key(); // not a structured binding: lambdas below capture it (clang 14)
    const nlohmann::json& value = item.value();
    const std::string at = join_field(field, key);
    if (is_axis(key)) {
      const search::Axis& axis = space.axis(key);
      const bool on_axis = value.is_number_integer()
                               ? axis.kind == search::AxisKind::ordinal && axis.contains(value.get<std::int64_t>())
                               : value.is_string() && axis.parse(value.get<std::string>());
      if (!on_axis) {
        std::string known;
        for (const std::int64_t v : axis.values) known += (known.empty() ? "" : ", ") + axis.format(v);
        throw InputError(kPinnedVariable, 0, at,
                         io::shown(value) + " is not a value of '" + key + "' (" + known + ") for " + where);
      }
      merged[key] = value;
      continue;
    }
    const auto& pruned = space.pruned();
    if (std::none_of(pruned.begin(), pruned.end(), [&](const search::PrunedAxis& p) { return p.name == key; })) {
      std::string known;
      for (const search::Axis& a : space.axes()) known += (known.empty() ? "" : ", ") + a.name;
      throw InputError(kPinnedVariable, 0, at, "'" + key + "' is not a parameter of " + where + " (" + known + ")");
    }
  }
  return space.config_from_json(merged);
}

std::string describe_hit(const KernelDescription& kernel, const ProfileHit& hit) {
  switch (hit.match) {
  case ProfileMatch::exact: return "profile";
  case ProfileMatch::nearest_size: return "profile (nearest size: " + format_problem(hit.entry.problem, kernel.problem) + ")";
  case ProfileMatch::same_gpu_model:
    return "profile (same GPU model, " + std::to_string(hit.entry.device.sm_count) +
           " SMs: " + format_problem(hit.entry.problem, kernel.problem) + ")";
  }
  return "profile";
}

// A note when `entry` was tuned for another version of `kernel` (its
// description or source text changed since): the configuration still runs
// where it is valid, but its measurements were not of this kernel. Entries
// saved before memtune recorded the version say nothing.
std::optional<std::string> other_version_note(const KernelDescription& kernel, const ProfileEntry& entry) {
  const std::string now = kernel.fingerprint();
  if (same_kernel(entry, now).value_or(true)) return std::nullopt;
  return "the profile entry for " + format_problem(entry.problem, kernel.problem) + " was tuned for another version of " +
         kernel.name + " (kernel fingerprint " + entry.kernel_fingerprint + ", this one " + now +
         "): its description or source changed since; tune again with --save to refresh it";
}

// ", as zfill=0 here (the same kernel)" where the lookup took a duplicate's form.
std::string same_kernel_note(const search::Space& space, const search::Config& saved, const search::Config& here) {
  std::string changed;
  for (const search::Axis& a : space.axes())
    if (saved.has(a.name) && saved.at(a.name) != here.at(a.name))
      changed += (changed.empty() ? "" : " ") + a.name + "=" + a.format(here.at(a.name));
  return changed.empty() ? std::string{} : ", as " + changed + " here (the same kernel)";
}

std::string microseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g us", seconds * 1e6);
  return text;
}

struct ValidRunnerUp {
  search::Config config;
  std::size_t rank = 0; // 1: the fastest runner-up
  double time_s = 0.0;  // [seconds] measured at the entry's size
};

// The fastest of `entry`'s runner-ups that may run in `space` (or whose same
// kernel may), with its rank and time, or nullopt when none may.
std::optional<ValidRunnerUp> fastest_valid_runner_up(const search::Space& space, const ProfileEntry& entry) {
  std::vector<std::pair<double, const nlohmann::json*>> ranked;
  for (const auto& r : entry.runner_ups) {
    const auto c = r.find("config");
    const auto t = r.find("time_s");
    if (c != r.end() && t != r.end() && t->is_number() && t->get<double>() > 0) ranked.emplace_back(t->get<double>(), &*c);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < ranked.size(); ++i)
    if (auto config = space.same_kernel_of_saved(*ranked[i].second)) return ValidRunnerUp{std::move(*config), i + 1, ranked[i].first};
  return std::nullopt;
}

} // namespace

SizeRuleModel size_rule_model(const KernelDescription& kernel, const Target& target) {
  // Spaces by problem (the call's and its neighbours'), shared by the callables' copies.
  auto spaces = std::make_shared<std::map<Problem, search::Space>>();
  const auto space_at = [&kernel, target, spaces](const Problem& at) -> const search::Space& {
    auto it = spaces->find(at);
    if (it == spaces->end()) it = spaces->emplace(at, kernel.space(at, target)).first;
    return it->second;
  };
  SizeRuleModel out;
  out.kept = [space_at](const nlohmann::json& saved, const Problem& at) -> std::optional<nlohmann::json> {
    const search::Space& space = space_at(at);
    if (const auto config = space.same_kernel_of_saved(saved)) return space.config_to_json(*config);
    return std::nullopt;
  };
  if (!kernel.has_model()) return out;
  out.predict = [&kernel, target, space_at](const nlohmann::json& saved, const KernelResources& resources,
                                            const Problem& at) -> std::optional<double> {
    try {
      const auto config = space_at(at).same_kernel_of_saved(saved);
      if (!config) return std::nullopt;
      const Evaluation e = predict_with_resources(kernel, at, target, *config, resources, kernel.bytes_moved(at));
      if (!e.ok() || !e.timing) return std::nullopt;
      return e.timing->median_s;
    } catch (const std::exception&) {
      return std::nullopt; // the model cannot say: the ranking interpolates the times alone
    }
  };
  return out;
}

LookupEnvironment LookupEnvironment::from_process() {
  LookupEnvironment e;
  if (const char* pinned = std::getenv("MEMTUNE_CONFIG"); pinned && *pinned) e.pinned = pinned;
  e.no_tune = tuning_disabled(std::getenv("MEMTUNE_NO_TUNE"));
  return e;
}

bool tuning_disabled(const char* text) {
  if (!text || !*text) return false;
  const std::string value = text;
  if (value == "0") return false;
  if (value == "1") return true;
  // "yes" or "true" might mean either to someone: refused, not guessed.
  throw InputError("MEMTUNE_NO_TUNE", 0, "", "'" + value + "': expected 1 (never tune) or 0 (tune when needed)");
}

std::optional<PinnedConfig> pinned_config(const std::string& text, const std::string& kernel, std::string* near_miss) {
  const io::JsonDocument doc = io::parse_json(text, kPinnedVariable); // syntax errors with their column
  const nlohmann::json& j = doc.root();
  if (!j.is_object())
    throw InputError(kPinnedVariable, 0, "",
                     "expected a JSON object ({\"block_size\": 128} or {\"" + kernel + "\": {...}}), got " + io::shown(j));
  // {"block_size": 128}: for every kernel. {"filter": {...}, "dot": {...}}:
  // per kernel, nothing pinned for a kernel not named. A parameter beside
  // kernel keys would be silently ignored for the kernels named: refused.
  const auto keyed = std::find_if(j.begin(), j.end(), [](const nlohmann::json& v) { return v.is_object(); });
  if (keyed == j.end()) return PinnedConfig{j, ""};
  for (const auto& [key, value] : j.items())
    if (!value.is_object())
      throw InputError(kPinnedVariable, 0, key,
                       "a parameter for every kernel beside per-kernel configurations (\"" + keyed.key() +
                           "\": {...}): pin either {\"" + key + "\": ...} or {\"<kernel>\": {\"" + key + "\": ...}}");
  if (const auto it = j.find(kernel); it != j.end()) return PinnedConfig{*it, kernel};
  // The program's other kernels are not known here: a key two edits from
  // this kernel's name may be a typo of it ("filtr") or another kernel
  // (saxpy beside daxpy). Not an error, which would break the other kernel's
  // lookup; said in the lookup's notes.
  if (near_miss)
    for (const auto& [key, value] : j.items())
      if (key.size() > 2 && edit_distance(key, kernel) <= 2)
        *near_miss = "MEMTUNE_CONFIG pins '" + key + "', not '" + kernel + "' (another kernel, or a typo of this one?)";
  return std::nullopt;
}

ConfigLookup look_up_config(const KernelDescription& kernel, const Problem& problem, const Target& target,
                            const ProfileStore* store, const LauncherOptions& options,
                            const LookupEnvironment& environment) {
  const search::Space space = kernel.space(problem, target);
  const std::string where = kernel.name + " (" + format_problem(problem, kernel.problem) + ") on " + target.display_name;
  ConfigLookup out;

  if (environment.pinned) {
    std::string near_miss;
    const auto pinned = pinned_config(*environment.pinned, kernel.name, &near_miss);
    if (!near_miss.empty()) out.notes.push_back(near_miss);
    if (pinned) {
      out.config = overlay(space, [&] { return kernel.default_config(problem, target); }, pinned->values, pinned->field,
                           where);
      if (const auto why = space.violation(out.config))
        throw InputError(kPinnedVariable, 0, pinned->field,
                         space.format(out.config) + " is not valid for " + where + ": " + *why);
      out.source = ConfigLookup::Source::pinned;
      out.origin = kPinnedVariable;
      out.rationale = "pinned by the MEMTUNE_CONFIG environment variable";
      return out;
    }
  }

  bool store_has_entries = false; // of this kernel, GPU model and non-size variables
  if (store) {
    // Between two swept sizes the model ranks the kept configurations at this
    // size from the resources the entries kept (size_rule.hpp): no compile.
    const SizeRuleModel rule = size_rule_model(kernel, target);
    std::vector<ProfileHit> hits =
        store->matches(fingerprint(target), kernel.name, problem, kernel.size_variables(), catalogue_names(target));
    store_has_entries = !hits.empty();
    std::optional<ProfileMatch> interpolated; // the kind of hits interpolation was tried on
    for (ProfileHit& hit : hits) {
      // An entry of this very problem (another board of the same model) is
      // taken as it is, not interpolated to itself.
      if (hit.match != ProfileMatch::exact && interpolated != hit.match && hit.entry.problem != problem) {
        // Between two sizes of a sweep: the interpolated ranking, before the nearest size alone.
        interpolated = hit.match;
        std::vector<ProfileEntry> kind;
        for (const ProfileHit& h : hits)
          if (h.match == hit.match) kind.push_back(h.entry);
        if (auto pick = interpolate_sizes(kind, problem, kernel.size_variables(), rule.kept, rule.predict)) {
          const std::string origin = "profile (" + describe(*pick, kernel.problem) + ")";
          try {
            const search::Config saved = space.config_from_saved_json(pick->config);
            if (const auto config = space.same_kernel(saved); !config) {
              out.skipped.push_back(origin + ": " + space.format(saved) + " is not valid here: " + *space.violation(saved));
            } else {
              out.config = *config;
              out.source = ConfigLookup::Source::profile;
              out.origin = origin + same_kernel_note(space, saved, *config);
              out.rationale = pick->modeled ? "best by the model's time at this size, corrected by what the two "
                                              "nearest swept sizes measured against it"
                                            : "best by the ranking interpolated between the two nearest swept sizes";
              for (const ProfileEntry* e : {&pick->lower, &pick->upper})
                if (auto note = other_version_note(kernel, *e)) out.notes.push_back(std::move(*note));
              out.profile = hit;
              out.between = std::move(pick);
              return out;
            }
          } catch (const std::invalid_argument& e) {
            out.skipped.push_back(origin + ": " + e.what());
          }
        }
      }
      std::string origin = describe_hit(kernel, hit);
      std::string rationale = hit.entry.rationale;
      try {
        const search::Config config = space.config_from_saved_json(hit.entry.config);
        if (const auto same = space.same_kernel(config); same && *same != config) {
          // A duplicate's form here (zfill 0 for a zfill that gives one chunk): the same kernel.
          out.config = *same;
          origin += same_kernel_note(space, config, *same);
        } else if (const auto why = space.violation(config)) {
          out.skipped.push_back(origin + ": " + space.format(config) + " is not valid here: " + *why);
          // Another size's best may not run at this one (a float4 load needs rows that are a
          // multiple of 4); its fastest runner-up that does is still that size's measurement.
          auto runner_up = fastest_valid_runner_up(space, hit.entry);
          if (!runner_up) continue;
          out.config = std::move(runner_up->config);
          origin += ", its runner-up " + std::to_string(runner_up->rank) + " (the best is not valid here)";
          // The entry's rationale explains its best, which is not the one taken.
          rationale = "the fastest runner-up valid here of the entry for " +
                      format_problem(hit.entry.problem, kernel.problem) + ": " + microseconds(runner_up->time_s) +
                      " measured there, against its best's " + microseconds(hit.entry.time_s) + " (" +
                      space.format(config) + ", not valid here: " + *why + ")";
        } else {
          out.config = config;
        }
      } catch (const std::invalid_argument& e) {
        out.skipped.push_back(origin + ": " + e.what());
        continue;
      }
      if (auto note = other_version_note(kernel, hit.entry)) out.notes.push_back(std::move(*note));
      out.source = ConfigLookup::Source::profile;
      out.origin = origin;
      out.rationale = std::move(rationale);
      out.profile = std::move(hit);
      return out;
    }
  }

  if (options.allow_tuning && !environment.no_tune) {
    out.source = ConfigLookup::Source::tune;
    out.origin = "tuned";
    return out;
  }
  out.source = ConfigLookup::Source::default_config;
  out.origin = "default";
  out.config = kernel.default_config(problem, target);
  // Why no entry served: none matched (another GPU, or another value of a
  // variable that is not a size: the fdtd's radius), or those that did were
  // passed over (out.skipped says why).
  std::string none;
  if (!store) {
    none = "no profile store";
  } else if (store_has_entries) {
    none = "no profile entry usable here";
  } else {
    std::string fixed;
    for (const ProblemParameter& p : kernel.problem)
      if (!p.is_size && problem.count(p.name))
        fixed += (fixed.empty() ? " with " : " ") + p.name + "=" + std::to_string(problem.at(p.name));
    none = "no profile entry of " + kernel.name + " for this GPU model" + fixed;
  }
  out.rationale = none + ", and tuning is off (" +
                  (environment.no_tune ? "MEMTUNE_NO_TUNE" : "LauncherOptions::allow_tuning false") +
                  "): the description's default configuration";
  return out;
}

} // namespace memtune
