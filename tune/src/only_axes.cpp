#include "only_axes.hpp"

#include <memtune/io/errors.hpp>

#include <algorithm>
#include <optional>

namespace memtune {
namespace {

std::string joined(const std::map<std::string, std::string>& only) {
  std::string s;
  for (const auto& [name, text] : only) s += (s.empty() ? "" : ",") + name + "=" + text;
  return s;
}

// The constraints that rule out every configuration with the fixed values, or
// nullopt when one satisfies them all. Walks the product of the other axes up
// to a limit (a larger product is left to the search, which reports it).
std::optional<std::string> unsatisfiable(const search::Space& space, const search::Config& fixed) {
  constexpr std::size_t kMostChecked = 1 << 18;
  std::vector<const search::Axis*> free;
  std::size_t product = 1;
  for (const auto& a : space.axes()) {
    if (fixed.has(a.name)) continue;
    free.push_back(&a);
    if (product > kMostChecked / a.values.size()) return std::nullopt;
    product *= a.values.size();
  }
  const auto& constraints = space.constraints();
  std::vector<std::size_t> failures(constraints.size(), 0);
  std::vector<std::size_t> digit(free.size(), 0);
  for (std::size_t n = 0; n < product; ++n) {
    search::Config c = fixed;
    for (std::size_t k = 0; k < free.size(); ++k) c.set(free[k]->name, free[k]->values[digit[k]]);
    bool all = true;
    for (std::size_t i = 0; i < constraints.size(); ++i) {
      bool holds = false;
      try {
        holds = constraints[i].holds(c);
      } catch (const std::logic_error&) {
        // A constraint that cannot be evaluated here (division by zero) rules the configuration out.
      }
      if (!holds) {
        ++failures[i];
        all = false;
      }
    }
    if (all) return std::nullopt;
    for (std::size_t k = free.size(); k-- > 0;) { // odometer, last axis fastest
      if (++digit[k] < free[k]->values.size()) break;
      digit[k] = 0;
    }
  }
  // Name the constraints that fail everywhere; when none does alone, those failing most.
  std::vector<std::size_t> named;
  for (std::size_t i = 0; i < constraints.size(); ++i)
    if (failures[i] == product) named.push_back(i);
  if (named.empty()) {
    for (std::size_t i = 0; i < constraints.size(); ++i)
      if (failures[i] > 0) named.push_back(i);
    std::stable_sort(named.begin(), named.end(), [&](std::size_t a, std::size_t b) { return failures[a] > failures[b]; });
  }
  if (named.size() > 3) named.resize(3);
  std::string text;
  for (const std::size_t i : named) {
    const auto& c = constraints[i];
    text += std::string(text.empty() ? "" : "; ") + (c.reason().empty() ? "" : c.reason() + ": ") + c.to_string();
    if (failures[i] < product)
      text += " (rules out " + std::to_string(failures[i]) + " of " + std::to_string(product) + ")";
  }
  return text;
}

} // namespace

std::vector<search::Constraint> only_constraints(const search::Space& space,
                                                 const std::map<std::string, std::string>& only) {
  std::vector<search::Constraint> out;
  search::Config fixed;
  for (const auto& item : only) {
    const std::string& name = item.first; // not a structured binding: clang 14 cannot capture those
    const std::string& text = item.second;
    const std::string argument = "--only " + name + "=" + text;
    const auto axis = std::find_if(space.axes().begin(), space.axes().end(),
                                   [&](const search::Axis& a) { return a.name == name; });
    if (axis == space.axes().end()) {
      for (const auto& p : space.pruned())
        if (p.name == name)
          throw ArgumentError(argument, "axis '" + name + "' was pruned for this target: " + p.reason);
      std::string names;
      for (const auto& a : space.axes()) names += (names.empty() ? "" : ", ") + a.name;
      throw ArgumentError(argument, "no axis '" + name + "' (axes: " + names + ")");
    }
    const std::optional<std::int64_t> value = axis->parse(text);
    if (!value) {
      std::string values;
      for (const auto v : axis->values) values += (values.empty() ? "" : ", ") + axis->format(v);
      throw ArgumentError(argument, "not a value of " + name + " (values: " + values + ")");
    }
    fixed.set(name, *value);
    out.push_back((search::axis(name) == search::Expr(*value)).because("fixed by --only " + name + "=" + text));
  }
  if (!only.empty())
    if (const auto why = unsatisfiable(space, fixed))
      throw ArgumentError("--only " + joined(only),
                          "no configuration with these values satisfies the space's constraints: " + *why);
  return out;
}

} // namespace memtune
