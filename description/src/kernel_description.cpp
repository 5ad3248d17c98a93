// What the tuning loop asks a kernel description: the problem, the space, the
// launch and compile request of a configuration, the bytes moved.
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/source_defines.hpp>

#include <memtune/description/argument_values.hpp>
#include <memtune/description/description_internal.hpp>
#include <memtune/search/constraint_census.hpp>

#include <algorithm>
#include <stdexcept>

namespace memtune {

using namespace description_detail;

const char* to_string(BufferRole role) {
  switch (role) {
  case BufferRole::in: return "in";
  case BufferRole::out: return "out";
  case BufferRole::inout: return "inout";
  case BufferRole::scratch: return "scratch";
  }
  return "?";
}

const std::string& argument_name(const Argument& argument) {
  return std::visit([](const auto& a) -> const std::string& { return a.name; }, argument);
}

bool Parameter::is_boolean() const {
  return axis.kind == search::AxisKind::categorical && axis.labels == std::vector<std::string>{"false", "true"};
}

const std::vector<std::string>& device_attribute_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, _] : device_attributes(Target{})) out.push_back(name);
    return out;
  }();
  return names;
}

std::map<std::string, std::int64_t> device_attributes(const Target& t) {
  return {{"max_threads_per_block", t.max_threads_per_block},
          {"max_shared_memory_per_block", static_cast<std::int64_t>(t.smem_per_block)},
          {"max_shared_memory_per_block_optin", static_cast<std::int64_t>(t.smem_per_block_optin)},
          {"shared_memory_per_sm", static_cast<std::int64_t>(t.smem_per_sm)},
          {"sm_count", t.sm_count},
          {"warp_size", t.warp_size},
          {"max_threads_per_sm", t.max_threads_per_sm},
          {"max_warps_per_sm", t.max_warps_per_sm},
          {"max_blocks_per_sm", t.max_blocks_per_sm},
          {"registers_per_sm", t.regs_per_sm},
          {"registers_per_block", t.max_regs_per_block},
          {"max_registers_per_thread", t.max_regs_per_thread},
          {"compute_capability", t.compute_capability()},
          {"l2_bytes", static_cast<std::int64_t>(t.l2_bytes)},
          {"bank_mode_choice", t.has_bank_mode_choice() ? 1 : 0}};
}

Problem KernelDescription::complete(const Problem& given) const { return complete_problem(problem, given); }

std::vector<std::string> KernelDescription::size_variables() const {
  std::vector<std::string> out;
  for (const auto& p : problem)
    if (p.is_size) out.push_back(p.name);
  return out;
}

search::Config KernelDescription::environment(const search::Config& config, const Problem& given,
                                              const Target& target) const {
  return description_detail::environment(*this, &config, given, &target);
}

namespace {

// A constraint's same_as as the space's axis values. Where one of its
// parameters is pruned on this target, or its value is not on the axis here
// (values_if), the mapping cannot give a configuration of this space: the
// constraint is then a plain one here.
std::vector<std::pair<std::string, std::int64_t>> duplicate_settings(const ConstraintSpec& c, const search::Space& s) {
  std::vector<std::pair<std::string, std::int64_t>> settings;
  for (const auto& setting : c.same_as) {
    const std::string& name = setting.first; // captured below: a structured binding cannot be, with clang 14
    const auto axis = std::find_if(s.axes().begin(), s.axes().end(), [&name](const search::Axis& a) { return a.name == name; });
    if (axis == s.axes().end()) return {};
    const auto value = axis->parse(setting.second);
    if (!value) return {};
    settings.emplace_back(name, *value);
  }
  return settings;
}

} // namespace

search::Space KernelDescription::space(const Problem& given, const Target& target) const {
  const search::Config env = problem_environment(*this, given, &target);
  // only_if, values_if and pruned_reason read no other parameter: an error
  // there holds for every configuration, a bad file for this problem.
  const auto problem_value = [&](const search::Expr& e, const search::Config& in, const std::string& field) {
    try {
      return resolved(*this, e).eval(in);
    } catch (const std::exception& err) {
      throw DescriptionError(origin_of(*this), field, err.what());
    }
  };
  search::Space s;
  std::vector<std::string> pruned;
  for (const auto& p : parameters) {
    const std::string field = "parameters." + p.axis.name;
    if (p.only_if && problem_value(*p.only_if, env, field + ".only_if") == 0) {
      std::string reason = "only where " + p.only_if->to_string();
      if (!p.pruned_reason.empty()) {
        try {
          reason = render_pattern(*this, p.pruned_reason, env, field + ".pruned_reason");
        } catch (const std::invalid_argument& err) {
          throw DescriptionError(origin_of(*this), field + ".pruned_reason", err.what());
        }
      }
      s.note_pruned({p.axis.name, reason});
      pruned.push_back(p.axis.name);
      continue;
    }
    search::Axis axis = p.axis;
    if (p.values_if) {
      std::vector<std::int64_t> kept;
      for (const std::int64_t v : axis.values) {
        search::Config with = env;
        with.set(axis.name, v);
        if (problem_value(*p.values_if, with, field + ".values_if") != 0) kept.push_back(v);
      }
      if (kept.empty()) {
        s.note_pruned({axis.name, "no value where " + p.values_if->to_string()});
        pruned.push_back(axis.name);
        continue;
      }
      axis.values = std::move(kept);
    }
    s.add(std::move(axis));
  }

  // Bind everything but the parameters: problem variables and device
  // attributes become numbers, derived values that read parameters their
  // expressions (so constraints read axes only, as a Space needs).
  std::map<std::string, search::Expr> bound_derived;
  const auto bind = [&](const std::string& name) -> std::optional<search::Expr> {
    if (env.has(name)) return search::Expr(env.at(name));
    if (const auto it = bound_derived.find(name); it != bound_derived.end()) return it->second;
    return std::nullopt;
  };
  // Substituting derived values shares their trees; an expression that
  // expands past search::kMaxExprSize is refused here, by field.
  const auto bound_expr = [&](const search::Expr& e, const std::string& field) {
    try {
      return resolved(*this, e).substitute(bind);
    } catch (const search::ExprTooLarge& err) {
      throw DescriptionError(description_detail::origin_of(*this), field, err.what());
    }
  };
  for (const auto& v : derived)
    if (!env.has(v.name)) bound_derived.emplace(v.name, bound_expr(v.value, "derived." + v.name));

  for (std::size_t i = 0; i < constraints.size(); ++i) {
    const auto& c = constraints[i];
    const std::string field = "constraints[" + std::to_string(i) + "]";
    const search::Expr bound = bound_expr(c.condition, field);
    std::vector<std::string> names;
    bound.collect_axes(names);
    // A constraint on a parameter this target does not have does not apply here.
    if (std::any_of(names.begin(), names.end(),
                    [&](const auto& n) { return std::find(pruned.begin(), pruned.end(), n) != pruned.end(); }))
      continue;
    if (bound.is_constant() && bound.constant_value() != 0) continue; // holds for every configuration
    s.require(search::Constraint::from_expr(bound, c.reason.empty() ? c.condition.to_string() : c.reason)
                  .located(description_detail::origin_of(*this) + ": field '" + field + "'")
                  .duplicates_of(duplicate_settings(c, s)));
  }
  return s;
}

namespace {

bool pattern_reads_parameter(const KernelDescription& d, const std::string& pattern) {
  for (const auto& piece : parse_pattern(pattern))
    if (piece.is_expr && reads_parameter(d, *piece.expr)) return true;
  return false;
}

bool has_std_option(const std::vector<std::string>& options) {
  return std::any_of(options.begin(), options.end(),
                     [](const std::string& o) { return o.rfind("-std=", 0) == 0 || o.rfind("--std=", 0) == 0; });
}

CompileRequest make_request(const std::vector<SourceFile>& files, const SourceSpec& source, const LaunchSpec& launch,
                            int compute_capability) {
  if (files.empty()) throw std::invalid_argument("a kernel description needs a source file");
  CompileRequest r;
  // The candidate's -D values, written into the files' own #define lines too:
  // a file that defines a tunable would otherwise keep its value.
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& o : launch.options) {
    if (o.rfind("-D", 0) != 0) continue;
    const auto eq = o.find('=');
    if (eq != std::string::npos) values.emplace_back(o.substr(2, eq - 2), o.substr(eq + 1));
  }
  r.source = substitute_defines(files[0].text, files[0].name, values);
  r.source_name = files[0].name;
  r.source_path = files[0].path;
  for (std::size_t i = 1; i < files.size(); ++i)
    r.headers.push_back({files[i].name, substitute_defines(files[i].text, files[i].name, values)});
  r.include_paths = source.include_paths;
  r.compiler = source.compiler;
  r.name_expression = launch.name_expression;
  r.options = launch.options; // the defines and source.options, rendered
  // -lineinfo lets Nsight Compute map counters to source lines.
  r.options.emplace_back("-lineinfo");
  if (!has_std_option(r.options)) r.options.emplace_back("-std=c++17");
  r.compute_capability = compute_capability;
  return r;
}

} // namespace

LaunchSpec KernelDescription::launch(const search::Config& config, const Problem& given, const Target& target) const {
  const search::Config env = description_detail::environment(*this, &config, given, &target);
  LaunchSpec l;
  std::size_t choice = 0;
  while (choice < source.kernel_if.size() &&
         evaluate(*this, source.kernel_if[choice].condition, env, "source.kernel[" + std::to_string(choice) + "].if") == 0)
    ++choice;
  l.name_expression = choice < source.kernel_if.size()
                          ? render_pattern(*this, source.kernel_if[choice].kernel, env,
                                           "source.kernel[" + std::to_string(choice) + "].name")
                          : render_pattern(*this, source.kernel, env,
                                           source.kernel_if.empty() ? std::string("source.kernel")
                                                                    : "source.kernel[" + std::to_string(choice) + "].name");
  for (const auto& [macro, value] : source.defines)
    l.options.push_back("-D" + macro + "=" + render_pattern(*this, value, env, "source.defines." + macro));
  for (std::size_t i = 0; i < source.options.size(); ++i)
    l.options.push_back(render_pattern(*this, source.options[i], env, "source.options[" + std::to_string(i) + "]"));
  const auto& e = launch_exprs;
  l.block = {launch_dimension(*this, e.block_x, env, "launch.block[0]", false, 0),
             launch_dimension(*this, e.block_y, env, "launch.block[1]", false, 1),
             launch_dimension(*this, e.block_z, env, "launch.block[2]", false, 2)};
  l.grid = {launch_dimension(*this, e.grid_x, env, "launch.grid[0]", true, 0),
            launch_dimension(*this, e.grid_y, env, "launch.grid[1]", true, 1),
            launch_dimension(*this, e.grid_z, env, "launch.grid[2]", true, 2)};
  l.dynamic_smem_bytes = shared_memory_bytes(*this, e.shared_memory, env, "launch.shared_memory");
  l.cooperative = e.cooperative;
  return l;
}

CompileRequest KernelDescription::compile_request(const LaunchSpec& l, int compute_capability) const {
  return make_request(source.files, source, l, compute_capability);
}

LaunchSpec KernelDescription::reference_launch(const Problem& given, const Target& target,
                                               const search::Config& axes) const {
  if (!verify.reference_kernel) throw std::logic_error(name + " has no reference kernel");
  const ReferenceKernel& k = *verify.reference_kernel;
  const search::Config env = description_detail::environment(*this, &axes, given, &target);
  LaunchSpec l;
  l.name_expression = render_pattern(*this, k.kernel, env, "verify.reference_kernel.kernel");
  for (const auto& [macro, value] : source.defines) {
    // A macro that reads a parameter has no value for the reference: left out.
    if (!pattern_reads_parameter(*this, value))
      l.options.push_back("-D" + macro + "=" + render_pattern(*this, value, env, "source.defines." + macro));
  }
  for (std::size_t i = 0; i < source.options.size(); ++i) // the same for options
    if (!pattern_reads_parameter(*this, source.options[i]))
      l.options.push_back(render_pattern(*this, source.options[i], env, "source.options[" + std::to_string(i) + "]"));
  const std::string field = "verify.reference_kernel.";
  const auto dim = [&](bool grid, std::size_t i) {
    const std::vector<search::Expr>& dims = grid ? k.grid : k.block;
    return i < dims.size() ? launch_dimension(*this, dims[i], env,
                                              field + (grid ? "grid[" : "block[") + std::to_string(i) + "]", grid, i)
                           : 1U;
  };
  l.block = {dim(false, 0), dim(false, 1), dim(false, 2)};
  l.grid = {dim(true, 0), dim(true, 1), dim(true, 2)};
  l.dynamic_smem_bytes = shared_memory_bytes(*this, k.shared_memory, env, field + "shared_memory");
  return l;
}

CompileRequest KernelDescription::reference_compile_request(const LaunchSpec& l, int compute_capability) const {
  if (!verify.reference_kernel) throw std::logic_error(name + " has no reference kernel");
  const auto& files = verify.reference_kernel->files.empty() ? source.files : verify.reference_kernel->files;
  return make_request(files, source, l, compute_capability);
}

search::Config KernelDescription::default_config(const Problem& given, const Target& target) const {
  if (hooks.default_config) return hooks.default_config(given, target);
  const search::Space s = space(given, target);
  if (default_config_json.is_object() && !default_config_json.empty()) {
    nlohmann::json present = nlohmann::json::object();
    for (const auto& a : s.axes())
      if (default_config_json.contains(a.name)) present[a.name] = default_config_json.at(a.name);
    try {
      search::Config c = s.config_from_json(present);
      if (s.is_valid(c)) return c;
    } catch (const std::invalid_argument&) {
      // not complete on this target: the first valid configuration instead
    }
  }
  // The first valid configuration in the cross product's order, looked for
  // among at most kEnumerateLimit: a space of billions with few valid ones
  // would otherwise hold an application's start-up for hours.
  const std::size_t n = s.cross_product_size();
  const std::size_t looked = std::min(n, search::Space::kEnumerateLimit);
  for (std::size_t i = 0; i < looked; ++i) {
    search::Config c = s.at_index(i);
    if (s.is_valid(c)) return c;
  }
  if (looked < n)
    throw std::invalid_argument(name + ": no valid configuration among the first " + std::to_string(looked) + " of " +
                                std::to_string(n) + " for " + format_problem(given, problem) + " on " + target.name +
                                ": give the description a \"default\" that is valid there");
  throw std::invalid_argument(name + ": no configuration is valid for " + format_problem(given, problem) + " on " +
                              target.name + " (" + search::constraint_census(s).describe() + ")");
}

search::Config KernelDescription::reference_configuration(const Problem& given, const Target& target) const {
  search::Config c = default_config(given, target);
  const search::Space s = space(given, target);
  for (const auto& [key, value] : verify.reference_config.items()) {
    if (!c.has(key)) continue; // pruned on this target
    const search::Axis& a = s.axis(key);
    const std::optional<std::int64_t> v =
        value.is_string() ? a.parse(value.get<std::string>())
                          : (value.is_number_integer() && a.contains(value.get<std::int64_t>())
                                 ? std::optional(value.get<std::int64_t>())
                                 : std::nullopt);
    if (!v) throw std::invalid_argument("verify.reference_config." + key + ": " + value.dump() + " is not a value of " + key);
    c.set(key, *v);
  }
  if (const auto why = s.violation(c))
    throw std::invalid_argument("verify.reference_config (" + s.format(c) + ") is not valid for " +
                                format_problem(given, problem) + " on " + target.name + ": " + *why);
  return c;
}

Tolerance tolerance_for(const VerifySpec& verify, ElementType type, std::int64_t terms) {
  const auto k = static_cast<double>(terms);
  if (verify.tolerance_given) return {verify.tolerance.abs * k, verify.tolerance.rel * k};
  return {verify.tolerance.abs * k, std::max(verify.tolerance.rel * k, default_relative_tolerance(type))};
}

KernelDescription KernelDescription::resolve_element_types(const Problem& given) const {
  KernelDescription d = *this;
  for (auto& a : d.arguments) {
    auto* b = std::get_if<BufferArgument>(&a);
    if (!b || b->type_from.empty()) continue;
    const auto labels = description_detail::labels_of(d, b->type_from);
    const auto value = given.find(b->type_from);
    if (!labels || value == given.end() || value->second < 0 || static_cast<std::size_t>(value->second) >= labels->size())
      throw std::invalid_argument(description_detail::origin_of(d) + ": the element type of '" + b->name + "' comes from '" +
                                  b->type_from + "', which the problem does not give as one of its labels");
    const auto type = element_type_from_string(labels->at(static_cast<std::size_t>(value->second)));
    if (!type)
      throw std::invalid_argument(description_detail::origin_of(d) + ": '" + labels->at(static_cast<std::size_t>(value->second)) +
                                  "' (" + b->type_from + ") is not an element type");
    b->type = *type;
  }
  return d;
}

std::uint64_t KernelDescription::bytes_moved(const Problem& given) const {
  for (const auto& a : arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a); b && !b->type_from.empty())
      return resolve_element_types(complete(given)).bytes_moved_resolved(given);
  return bytes_moved_resolved(given);
}

std::uint64_t KernelDescription::bytes_moved_resolved(const Problem& given) const {
  const search::Config env = description_detail::environment(*this, nullptr, given, nullptr);
  if (bytes_moved_expr) {
    const std::int64_t v = evaluate(*this, *bytes_moved_expr, env, "bytes_moved");
    if (v < 0) throw std::invalid_argument("bytes_moved = " + bytes_moved_expr->to_string() + " is negative");
    return static_cast<std::uint64_t>(v);
  }
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const auto* b = std::get_if<BufferArgument>(&arguments[i]);
    if (!b || b->role == BufferRole::scratch) continue;
    const std::string field = "arguments[" + std::to_string(i) + "].count";
    const std::int64_t count = evaluate(*this, b->count, env, field);
    const std::uint64_t times = b->role == BufferRole::inout ? 2 : 1; // read and written back
    std::uint64_t bytes = 0;
    if (count < 0 ||
        __builtin_mul_overflow(static_cast<std::uint64_t>(count), times * element_size(b->type), &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      throw std::invalid_argument(field + " (" + b->name + ") = " + std::to_string(count) +
                                  (count < 0 ? ": a buffer has at least 0 elements" : ": the bytes moved do not fit in 64 bits"));
  }
  return total;
}

std::vector<std::string> KernelDescription::baseline_names() const {
  std::vector<std::string> out;
  for (const auto& [n, _] : baselines) out.push_back(n);
  for (const auto& [n, _] : hooks.baselines)
    if (!baselines.contains(n)) out.push_back(n);
  return out;
}

void KernelDescription::check_baseline_names(const std::vector<std::string>& names) const {
  const std::vector<std::string> known = baseline_names();
  for (const std::string& n : names) {
    if (std::find(known.begin(), known.end(), n) != known.end()) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument("unknown baseline '" + n + "' for " + name +
                                (known.empty() ? " (it has none)" : " (known: " + list + ")"));
  }
}

} // namespace memtune
