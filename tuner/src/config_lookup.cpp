#include <memtune/config_lookup.hpp>
#include <memtune/device.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace memtune {
namespace {

// `values` over the default configuration: parameters left out keep their
// default, parameters pruned on this GPU are dropped, unknown ones are errors.
search::Config overlay(const search::Space& space, const search::Config& base, const nlohmann::json& values) {
  if (!values.is_object()) throw std::invalid_argument("expected a JSON object, got " + values.dump());
  nlohmann::json merged = space.config_to_json(base);
  for (const auto& [key, value] : values.items()) {
    if (merged.contains(key)) {
      merged[key] = value;
      continue;
    }
    const auto& pruned = space.pruned();
    if (std::none_of(pruned.begin(), pruned.end(), [&](const search::PrunedAxis& p) { return p.name == key; }))
      throw std::invalid_argument("'" + key + "' is not a parameter of this kernel");
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

} // namespace

LookupEnvironment LookupEnvironment::from_process() {
  LookupEnvironment e;
  if (const char* pinned = std::getenv("MEMTUNE_CONFIG"); pinned && *pinned) e.pinned = pinned;
  const char* no_tune = std::getenv("MEMTUNE_NO_TUNE");
  e.no_tune = no_tune && *no_tune && std::string(no_tune) != "0";
  return e;
}

std::optional<nlohmann::json> pinned_config_json(const std::string& text, const std::string& kernel) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(std::string("MEMTUNE_CONFIG is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw std::invalid_argument("MEMTUNE_CONFIG must be a JSON object, got " + j.dump());
  if (const auto it = j.find(kernel); it != j.end() && it->is_object()) return *it;
  // Keyed by kernel name (values are objects), without this kernel: nothing pinned for it.
  for (const auto& [_, value] : j.items())
    if (value.is_object()) return std::nullopt;
  return j;
}

ConfigLookup look_up_config(const KernelDescription& kernel, const Problem& problem, const Target& target,
                            const ProfileStore* store, const LauncherOptions& options,
                            const LookupEnvironment& environment) {
  const search::Space space = kernel.space(problem, target);
  const std::string where = kernel.name + " (" + format_problem(problem, kernel.problem) + ") on " + target.display_name;
  ConfigLookup out;

  if (environment.pinned) {
    if (const auto pinned = pinned_config_json(*environment.pinned, kernel.name)) {
      try {
        out.config = overlay(space, kernel.default_config(problem, target), *pinned);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("MEMTUNE_CONFIG for " + where + ": " + e.what());
      }
      if (const auto why = space.violation(out.config))
        throw std::invalid_argument("MEMTUNE_CONFIG for " + where + ": " + space.format(out.config) +
                                    " is not valid here: " + *why);
      out.source = ConfigLookup::Source::pinned;
      out.origin = "MEMTUNE_CONFIG";
      out.rationale = "pinned by the MEMTUNE_CONFIG environment variable";
      return out;
    }
  }

  if (store) {
    for (ProfileHit& hit : store->matches(fingerprint(target), kernel.name, problem, kernel.size_variables())) {
      const std::string origin = describe_hit(kernel, hit);
      try {
        const search::Config config = space.config_from_json(hit.entry.config);
        if (const auto why = space.violation(config)) {
          out.skipped.push_back(origin + ": " + space.format(config) + " is not valid here: " + *why);
          continue;
        }
        out.config = config;
      } catch (const std::invalid_argument& e) {
        out.skipped.push_back(origin + ": " + e.what());
        continue;
      }
      out.source = ConfigLookup::Source::profile;
      out.origin = origin;
      out.rationale = hit.entry.rationale;
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
  out.rationale = std::string("tuning disabled by ") +
                  (environment.no_tune ? "MEMTUNE_NO_TUNE" : "LauncherOptions::allow_tuning") +
                  " and no usable profile entry: the description's default configuration";
  return out;
}

} // namespace memtune
