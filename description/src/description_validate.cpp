// KernelDescription::validate: every check that needs no problem, target or
// GPU, with errors that name the field (as the JSON format spells it). The
// Validator class is declared in description_validator.hpp; this file holds
// its names, expressions, source, problem, parameter and launch checks
// (description_validate_arguments.cpp the rest).
#include "description_validator.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/description/source_defines.hpp>

#include <memtune/description/description_internal.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace memtune {
namespace description_detail {

void Validator::run() {
  check_identity();
  check_names();
  reads_ = derived_reads(d_);
  check_source();
  check_problem();
  check_parameters();
  for (std::size_t i = 0; i < d_.derived.size(); ++i)
    check_expr(d_.derived[i].value, "derived." + d_.derived[i].name, Scope::everything, i);
  for (std::size_t i = 0; i < d_.constraints.size(); ++i) {
    check_expr(d_.constraints[i].condition, "constraints[" + std::to_string(i) + "]", Scope::everything);
    check_same_as(d_.constraints[i], "constraints[" + std::to_string(i) + "].same_as");
  }
  check_launch();
  check_arguments();
  check_constants();
  check_bytes_moved();
  check_verify();
  check_baselines();
  check_default();
  check_model();
}

// A duplicate's parameters name tunable parameters and values on their axes.
void Validator::check_same_as(const ConstraintSpec& c, const std::string& field) const {
  for (const auto& pair : c.same_as) {
    const std::string& name = pair.first; // captured below: a binding cannot be, with clang 14
    const std::string& text = pair.second;
    const auto p = std::find_if(d_.parameters.begin(), d_.parameters.end(),
                                [&](const Parameter& q) { return q.axis.name == name; });
    if (p == d_.parameters.end()) fail(field + "." + name, "'" + name + "' is not a tunable parameter");
    if (!p->axis.parse(text)) {
      std::string values;
      for (const auto x : p->axis.values) values += (values.empty() ? "" : ", ") + p->axis.format(x);
      fail(field + "." + name, "'" + text + "' is not a value of " + name + " (values: " + values + ")");
    }
  }
}

void Validator::check_identity() const {
  if (d_.name.empty()) fail("name", "a description needs a name (the profile key and the command's name)");
  for (char c : d_.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      fail("name", "'" + d_.name + "' may hold letters, digits, '_', '-' and '.' only");
}

// Parameters, problem variables, derived values and device attributes share
// one namespace: an expression must never be ambiguous.
void Validator::check_names() const {
  std::map<std::string, std::string> owner; // name -> field that declared it
  for (const auto& name : device_attribute_names()) owner[name] = "device attribute";
  const auto declare = [&](const std::string& name, const std::string& field) {
    if (!is_identifier(name))
      fail(field, "'" + name + "' is not a name: letters, digits and '_', not starting with a digit");
    if (name == "true" || name == "false" || name == "min" || name == "max" || name == "ceil_div" || name == "round_up" ||
        name == "bit_and" || name == "bit_xor")
      fail(field, "'" + name + "' is a word of the expression language");
    const auto [it, fresh] = owner.emplace(name, field);
    if (!fresh) fail(field, "the name '" + name + "' is already taken by " + it->second);
  };
  for (std::size_t i = 0; i < d_.problem.size(); ++i) declare(d_.problem[i].name, "problem." + d_.problem[i].name);
  for (const auto& p : d_.parameters) declare(p.axis.name, "parameters." + p.axis.name);
  for (const auto& v : d_.derived) declare(v.name, "derived." + v.name);
}

// Labels resolve, and every name read is declared and allowed in `scope`
// (derived values: only those before `derived_limit`).
void Validator::check_expr(const search::Expr& e, const std::string& field, Scope scope,
                           std::size_t derived_limit) const {
  for (const auto& n : names_read(e, field)) check_name(n, field, scope, derived_limit);
}

// The names `e` reads, once its labels resolve.
std::vector<std::string> Validator::names_read(const search::Expr& e, const std::string& field) const {
  try {
    (void)resolved(d_, e);
  } catch (const std::invalid_argument& err) {
    fail(field, err.what());
  }
  std::vector<std::string> names;
  e.collect_axes(names);
  return names;
}

void Validator::check_name(const std::string& n, const std::string& field, Scope scope, std::size_t derived_limit) const {
  const auto kind = kinds_.find(n);
  if (kind == kinds_.end()) fail(field, "unknown name '" + n + "' (" + known_names() + ")");
  std::size_t index = 0;
  if (kind->second == NameKind::derived) {
    while (d_.derived[index].name != n) ++index;
    if (index >= derived_limit)
      fail(field, "the derived value '" + n + "' is defined after this one (derived values are evaluated in order)");
  }
  const bool reads_parameter =
      kind->second == NameKind::parameter || (kind->second == NameKind::derived && reads_.parameter[index]);
  const bool reads_device = kind->second == NameKind::device || (kind->second == NameKind::derived && reads_.device[index]);
  if (scope != Scope::everything && reads_parameter)
    fail(field, "reads the " + std::string(kind->second == NameKind::parameter ? "tunable parameter '" : "derived value '") +
                    n + "'" + (kind->second == NameKind::derived ? " (which reads a tunable parameter)" : "") +
                    ", but its value must not depend on the configuration");
  if (scope == Scope::problem_only && reads_device)
    fail(field, "reads '" + n + "', which depends on the GPU; only problem variables are allowed here");
}

std::string Validator::known_names() const {
  std::string out;
  for (const auto kind : {NameKind::parameter, NameKind::problem, NameKind::derived}) {
    std::string list;
    for (const auto& [n, k] : kinds_)
      if (k == kind) list += (list.empty() ? "" : ", ") + n;
    if (!list.empty()) out += std::string(out.empty() ? "" : "; ") + to_string(kind) + "s: " + list;
  }
  return out + (out.empty() ? "" : "; ") + "device attributes: " + [] {
    std::string list;
    for (const auto& n : device_attribute_names()) list += (list.empty() ? "" : ", ") + n;
    return list;
  }();
}

void Validator::check_pattern(const std::string& pattern, const std::string& field, Scope scope) const {
  std::vector<PatternPiece> pieces;
  try {
    pieces = parse_pattern(pattern);
  } catch (const search::ExprSyntaxError& e) {
    fail(field, explain_syntax_error(e, pattern));
  }
  for (const auto& p : pieces)
    if (p.is_expr) check_expr(*p.expr, field, scope);
}

void Validator::check_source() const {
  if (d_.source.files.empty()) fail("source.files", "no source file: the first one is compiled");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < d_.source.files.size(); ++i) {
    const std::string field = "source.files[" + std::to_string(i) + "]";
    if (d_.source.files[i].name.empty()) fail(field, "a source file needs a name");
    if (!seen.insert(d_.source.files[i].name).second) fail(field, "'" + d_.source.files[i].name + "' is listed twice");
  }
  if (d_.source.kernel.empty()) fail("source.kernel", "the kernel's name (or a name-expression pattern) is missing");
  const auto& choices = d_.source.kernel_if;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const std::string field = "source.kernel[" + std::to_string(i) + "]";
    check_expr(choices[i].condition, field + ".if", Scope::everything);
    if (choices[i].kernel.empty()) fail(field + ".name", "the kernel's name (or a name-expression pattern) is missing");
    check_pattern(choices[i].kernel, field + ".name", Scope::everything);
  }
  check_pattern(d_.source.kernel,
                choices.empty() ? std::string("source.kernel") : "source.kernel[" + std::to_string(choices.size()) + "].name",
                Scope::everything);
  std::set<std::string> macros;
  for (const auto& [macro, value] : d_.source.defines) {
    const std::string field = "source.defines." + macro;
    if (!is_identifier(macro)) fail(field, "'" + macro + "' is not a macro name");
    if (!macros.insert(macro).second) fail(field, "the macro is defined twice");
    check_pattern(value, field, Scope::everything);
    for (const auto& file : d_.source.files) {
      try {
        (void)find_macro_definitions(file.text, file.name, {macro});
      } catch (const std::invalid_argument& e) {
        fail(field, e.what());
      }
    }
  }
  for (std::size_t i = 0; i < d_.source.options.size(); ++i) {
    const std::string field = "source.options[" + std::to_string(i) + "]";
    const std::string& option = d_.source.options[i];
    if (option.empty() || option[0] != '-' || option.find_first_of(" \t\n") != std::string::npos)
      fail(field, "'" + option + "' is not one compiler option (it starts with '-' and holds no blank)");
    check_pattern(option, field, Scope::everything);
  }
}

void Validator::check_problem() const {
  for (const auto& p : d_.problem) {
    const std::string field = "problem." + p.name;
    if (p.min > p.max) fail(field, "min " + std::to_string(p.min) + " is above max " + std::to_string(p.max));
    if (!p.labels.empty()) {
      if (p.min != 0 || p.max != static_cast<std::int64_t>(p.labels.size()) - 1)
        fail(field, "a choice's range is the index of its labels: [0, " + std::to_string(p.labels.size() - 1) + "]");
      if (std::set<std::string>(p.labels.begin(), p.labels.end()).size() != p.labels.size())
        fail(field + ".values", "a label is listed twice");
    }
    if (p.default_value < p.min || p.default_value > p.max)
      fail(field + ".default", std::to_string(p.default_value) + " is outside [" + std::to_string(p.min) + ", " +
                                   std::to_string(p.max) + "]");
  }
}

void Validator::check_parameters() const {
  for (const auto& p : d_.parameters) {
    const std::string field = "parameters." + p.axis.name;
    if (p.axis.values.empty()) fail(field, "a parameter needs at least one value");
    if (p.axis.kind == search::AxisKind::categorical &&
        std::set<std::string>(p.axis.labels.begin(), p.axis.labels.end()).size() != p.axis.labels.size())
      fail(field, "a label is listed twice");
    if (p.only_if) check_expr(*p.only_if, field + ".only_if", Scope::no_parameters);
    if (!p.pruned_reason.empty()) check_pattern(p.pruned_reason, field + ".pruned_reason", Scope::no_parameters);
    if (p.values_if) check_values_if(p, field + ".values_if");
  }
}

// Reads the parameter's own value, and otherwise what only_if may read.
void Validator::check_values_if(const Parameter& p, const std::string& field) const {
  if (p.axis.kind != search::AxisKind::ordinal) fail(field, "only integer parameters have their values filtered");
  try {
    (void)resolved(d_, *p.values_if);
  } catch (const std::invalid_argument& err) {
    fail(field, err.what());
  }
  std::vector<std::string> names;
  p.values_if->collect_axes(names);
  for (const auto& n : names)
    if (n != p.axis.name) check_name(n, field, Scope::no_parameters, SIZE_MAX);
}

void Validator::check_launch() const {
  const auto& l = d_.launch_exprs;
  const std::pair<const search::Expr*, const char*> fields[] = {
      {&l.block_x, "launch.block[0]"}, {&l.block_y, "launch.block[1]"}, {&l.block_z, "launch.block[2]"},
      {&l.grid_x, "launch.grid[0]"},   {&l.grid_y, "launch.grid[1]"},   {&l.grid_z, "launch.grid[2]"},
      {&l.shared_memory, "launch.shared_memory"}};
  for (const auto& [e, field] : fields) check_expr(*e, field, Scope::everything);
}

} // namespace description_detail

void KernelDescription::validate() const { description_detail::Validator(*this).run(); }

} // namespace memtune
