#include <memtune/description/description_internal.hpp>
#include <memtune/description/description_json.hpp>

#include <algorithm>
#include <stdexcept>

namespace memtune::description_detail {

std::string origin_of(const KernelDescription& d) {
  return d.origin.empty() ? "description '" + d.name + "'" : d.origin;
}

const char* to_string(NameKind kind) {
  switch (kind) {
  case NameKind::parameter: return "tunable parameter";
  case NameKind::problem: return "problem variable";
  case NameKind::device: return "device attribute";
  case NameKind::derived: return "derived value";
  }
  return "name";
}

std::map<std::string, NameKind> name_kinds(const KernelDescription& d) {
  std::map<std::string, NameKind> kinds;
  for (const auto& name : device_attribute_names()) kinds[name] = NameKind::device;
  for (const auto& p : d.problem) kinds[p.name] = NameKind::problem;
  for (const auto& p : d.parameters) kinds[p.axis.name] = NameKind::parameter;
  for (const auto& v : d.derived) kinds[v.name] = NameKind::derived;
  return kinds;
}

std::optional<std::vector<std::string>> labels_of(const KernelDescription& d, const std::string& name) {
  for (const auto& p : d.parameters)
    if (p.axis.name == name && p.axis.kind == search::AxisKind::categorical) return p.axis.labels;
  for (const auto& p : d.problem)
    if (p.name == name && !p.labels.empty()) return p.labels;
  return std::nullopt;
}

search::Expr resolved(const KernelDescription& d, const search::Expr& e) {
  return e.resolve_labels([&](const std::string& name) { return labels_of(d, name); });
}

DerivedReads derived_reads(const KernelDescription& d) {
  DerivedReads reads;
  const auto kinds = name_kinds(d);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < d.derived.size(); ++i) {
    std::vector<std::string> names;
    d.derived[i].value.collect_axes(names);
    bool parameter = false, device = false;
    for (const auto& n : names) {
      const auto kind = kinds.find(n);
      if (kind == kinds.end()) continue;
      if (kind->second == NameKind::parameter) parameter = true;
      if (kind->second == NameKind::device) device = true;
      if (const auto earlier = index.find(n); kind->second == NameKind::derived && earlier != index.end()) {
        parameter = parameter || reads.parameter[earlier->second];
        device = device || reads.device[earlier->second];
      }
    }
    reads.parameter.push_back(parameter);
    reads.device.push_back(device);
    index[d.derived[i].name] = i;
  }
  return reads;
}

bool reads_parameter(const KernelDescription& d, const search::Expr& e) {
  std::vector<std::string> names;
  e.collect_axes(names);
  const auto kinds = name_kinds(d);
  const DerivedReads reads = derived_reads(d);
  for (const auto& n : names) {
    const auto kind = kinds.find(n);
    if (kind == kinds.end()) continue;
    if (kind->second == NameKind::parameter) return true;
    for (std::size_t i = 0; i < d.derived.size(); ++i)
      if (kind->second == NameKind::derived && d.derived[i].name == n && reads.parameter[i]) return true;
  }
  return false;
}

search::Config environment(const KernelDescription& d, const search::Config* config, const Problem& problem,
                           const Target* target) {
  search::Config env;
  for (const auto& [name, value] : problem) env.set(name, value);
  if (target)
    for (const auto& [name, value] : device_attributes(*target)) env.set(name, value);
  if (config)
    for (const auto& [name, value] : config->values()) env.set(name, value);
  for (const auto& v : d.derived) {
    try {
      env.set(v.name, resolved(d, v.value).eval(env));
    } catch (const std::out_of_range&) {
      // Reads a parameter not given (no configuration yet, or pruned on this
      // target, outside a ?: that guards it): absent, like the parameter.
    } catch (const std::exception& err) {
      throw DerivedValueError("derived." + v.name, clipped(v.value.to_string()), err.what());
    }
  }
  return env;
}

search::Config problem_environment(const KernelDescription& d, const Problem& problem, const Target* target) {
  try {
    return environment(d, nullptr, problem, target);
  } catch (const DerivedValueError& e) {
    throw DescriptionError(origin_of(d), e.field(), e.reason());
  }
}

std::int64_t evaluate(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                      const std::string& field) {
  try {
    return resolved(d, e).eval(env);
  } catch (const std::exception& err) {
    throw std::invalid_argument(field + " = " + clipped(e.to_string()) + ": " + err.what());
  }
}

std::string explain_syntax_error(const search::ExprSyntaxError& e, std::string_view text) {
  constexpr std::size_t kWindow = 100;
  std::size_t from = 0, caret = e.position();
  std::string shown(text);
  if (text.size() > kWindow) {
    from = e.position() > kWindow / 2 ? std::min(e.position() - kWindow / 2, text.size() - kWindow) : 0;
    shown = (from > 0 ? "..." : "") + std::string(text.substr(from, kWindow)) + (from + kWindow < text.size() ? "..." : "");
    caret = e.position() - from + (from > 0 ? 3 : 0);
  }
  return std::string(e.what()) + "\n    " + shown + "\n    " + std::string(caret, ' ') + "^";
}

std::string clipped(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return std::string(text.substr(0, max_chars)) + "... (" + std::to_string(text.size()) + " characters)";
}

} // namespace memtune::description_detail
