#include <memtune/io/errors.hpp>
#include <memtune/description/problem.hpp>

#include <stdexcept>

namespace memtune {

Problem complete_problem(const std::vector<ProblemParameter>& parameters, const Problem& given) {
  Problem out;
  for (const auto& p : parameters) {
    auto it = given.find(p.name);
    const std::int64_t v = it == given.end() ? p.default_value : it->second;
    if (v < p.min || v > p.max)
      throw ArgumentError("", "problem parameter '" + p.name + "' = " + std::to_string(v) + " is out of range [" +
                                  std::to_string(p.min) + ", " + std::to_string(p.max) + "]");
    out[p.name] = v;
  }
  for (const auto& [name, value] : given) {
    if (out.count(name)) continue;
    std::string known;
    for (const auto& p : parameters) known += (known.empty() ? "" : ", ") + p.name;
    throw ArgumentError("", "unknown problem parameter '" + name + "' (known: " + known + ")");
  }
  return out;
}

std::string format_problem(const Problem& problem) {
  std::string s;
  for (const auto& [name, value] : problem) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s;
}

std::string format_problem(const Problem& problem, const std::vector<ProblemParameter>& parameters) {
  std::string s;
  for (const auto& [name, value] : problem) {
    std::string text = std::to_string(value);
    for (const auto& p : parameters)
      if (p.name == name && value >= 0 && static_cast<std::size_t>(value) < p.labels.size())
        text = p.labels[static_cast<std::size_t>(value)];
    s += (s.empty() ? "" : " ") + name + "=" + text;
  }
  return s;
}

} // namespace memtune
