// KernelDescription::validate: every check that needs no problem, target or
// GPU, with errors that name the field (as the JSON format spells it).
#include <memtune/description/description_json.hpp>
#include <memtune/description/source_defines.hpp>

#include "description_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace memtune {

using namespace description_detail;

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Which names an expression may read.
enum class Scope {
  everything,     // parameters, problem variables, device attributes, derived values
  no_parameters,  // decided before a configuration exists (only_if, the reference kernel)
  problem_only,   // bytes moved: per problem, the same on every GPU
};

class Validator {
public:
  explicit Validator(const KernelDescription& d)
      : d_(d), kinds_(name_kinds(d)), reads_() {}

  void run() {
    check_identity();
    check_names();
    reads_ = derived_reads(d_);
    check_source();
    check_problem();
    check_parameters();
    for (std::size_t i = 0; i < d_.derived.size(); ++i)
      check_expr(d_.derived[i].value, "derived." + d_.derived[i].name, Scope::everything, i);
    for (std::size_t i = 0; i < d_.constraints.size(); ++i)
      check_expr(d_.constraints[i].condition, "constraints[" + std::to_string(i) + "]", Scope::everything);
    check_launch();
    check_arguments();
    check_constants();
    check_bytes_moved();
    check_verify();
    check_default();
    check_model();
  }

private:
  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw DescriptionError(origin_of(d_), field, reason);
  }

  void check_identity() const {
    if (d_.name.empty()) fail("name", "a description needs a name (the profile key and the command's name)");
    for (char c : d_.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
        fail("name", "'" + d_.name + "' may hold letters, digits, '_', '-' and '.' only");
  }

  // Parameters, problem variables, derived values and device attributes share
  // one namespace: an expression must never be ambiguous.
  void check_names() const {
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
  void check_expr(const search::Expr& e, const std::string& field, Scope scope,
                  std::size_t derived_limit = SIZE_MAX) const {
    for (const auto& n : names_read(e, field)) check_name(n, field, scope, derived_limit);
  }

  // The names `e` reads, once its labels resolve.
  std::vector<std::string> names_read(const search::Expr& e, const std::string& field) const {
    try {
      (void)resolved(d_, e);
    } catch (const std::invalid_argument& err) {
      fail(field, err.what());
    }
    std::vector<std::string> names;
    e.collect_axes(names);
    return names;
  }

  void check_name(const std::string& n, const std::string& field, Scope scope, std::size_t derived_limit) const {
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

  std::string known_names() const {
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

  void check_pattern(const std::string& pattern, const std::string& field, Scope scope) const {
    std::vector<PatternPiece> pieces;
    try {
      pieces = parse_pattern(pattern);
    } catch (const search::ExprSyntaxError& e) {
      fail(field, explain_syntax_error(e, pattern));
    }
    for (const auto& p : pieces)
      if (p.is_expr) check_expr(*p.expr, field, scope);
  }

  void check_source() const {
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

  void check_problem() const {
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

  void check_parameters() const {
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
  void check_values_if(const Parameter& p, const std::string& field) const {
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

  void check_launch() const {
    const auto& l = d_.launch_exprs;
    const std::pair<const search::Expr*, const char*> fields[] = {
        {&l.block_x, "launch.block[0]"}, {&l.block_y, "launch.block[1]"}, {&l.block_z, "launch.block[2]"},
        {&l.grid_x, "launch.grid[0]"},   {&l.grid_y, "launch.grid[1]"},   {&l.grid_z, "launch.grid[2]"},
        {&l.shared_memory, "launch.shared_memory"}};
    for (const auto& [e, field] : fields) check_expr(*e, field, Scope::everything);
  }

  void check_fill(const Fill& f, ElementType type, const std::string& field) const {
    switch (f.kind) {
    case Fill::Kind::random:
      if (f.lo.has_value() != f.hi.has_value()) fail(field, "a random range needs both ends");
      if (f.lo) {
        if (!std::isfinite(*f.lo) || !std::isfinite(*f.hi) || *f.lo > *f.hi)
          fail(field, "the random range [" + std::to_string(*f.lo) + ", " + std::to_string(*f.hi) + "] is empty or not finite");
        check_representable(*f.lo, type, field);
        check_representable(*f.hi, type, field);
      }
      break;
    case Fill::Kind::constant: check_representable(f.value, type, field); break;
    case Fill::Kind::custom:
      if (!f.custom) fail(field, "a custom fill needs its C++ function");
      break;
    }
    if (!f.depends_on.empty() && f.kind != Fill::Kind::custom)
      fail(field + ".depends_on", "only a custom fill depends on parameters (random and constant fills never do)");
    check_parameter_list(f.depends_on, field + ".depends_on");
  }

  void check_representable(double v, ElementType vector, const std::string& field) const {
    const ElementType type = lane_type(vector); // a vector's lanes are filled one by one
    if (is_floating(type)) {
      if (!std::isfinite(v)) fail(field, "the value is not finite");
      if (type == ElementType::f16 && std::fabs(v) > 65504.0)
        fail(field, std::to_string(v) + " does not fit in half (largest 65504)");
      return;
    }
    if (v != std::floor(v)) fail(field, std::to_string(v) + " is not an integer, but the type is " + to_string(type));
    const int bits = static_cast<int>(element_size(type)) * 8;
    const bool is_signed = type == ElementType::i8 || type == ElementType::i16 || type == ElementType::i32 ||
                           type == ElementType::i64;
    const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
    const double hi = is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    if (v < lo || v > hi) fail(field, std::to_string(static_cast<long long>(v)) + " does not fit in " + to_string(type));
  }

  void check_parameter_list(const std::vector<std::string>& names, const std::string& field) const {
    for (const auto& n : names) {
      const auto kind = kinds_.find(n);
      if (kind == kinds_.end() || kind->second != NameKind::parameter)
        fail(field, "'" + n + "' is not a tunable parameter");
    }
  }

  void check_arguments() const {
    std::set<std::string> seen;
    bool verified_output = false;
    for (std::size_t i = 0; i < d_.arguments.size(); ++i) {
      const std::string field = "arguments[" + std::to_string(i) + "]";
      const std::string& name = argument_name(d_.arguments[i]);
      if (name.empty()) fail(field + ".name", "an argument needs a name");
      if (!seen.insert(name).second) fail(field + ".name", "the argument '" + name + "' is listed twice");
      if (const auto* b = std::get_if<BufferArgument>(&d_.arguments[i])) {
        check_expr(b->count, field + ".count", Scope::everything);
        check_expr(b->offset, field + ".offset", Scope::everything);
        if (b->partial && b->role != BufferRole::out)
          fail(field + ".partial", std::string("only an out buffer is written in part (an ") + to_string(b->role) +
                                       " buffer keeps what it holds where the kernel does not write)");
        if (!b->type_from.empty()) {
          const auto labels = labels_of(d_, b->type_from);
          const bool is_problem = std::any_of(d_.problem.begin(), d_.problem.end(),
                                              [&](const ProblemParameter& p) { return p.name == b->type_from; });
          if (!labels || !is_problem)
            fail(field + ".buffer", "'{" + b->type_from + "}': '" + b->type_from + "' is not a problem enumeration");
          for (const auto& label : *labels)
            if (!element_type_from_string(label))
              fail(field + ".buffer", "'" + label + "' (a label of " + b->type_from + ") is not an element type");
        }
        const bool filled = b->role == BufferRole::in || b->role == BufferRole::inout;
        if (!filled && (b->fill.kind != Fill::Kind::random || b->fill.lo || !b->fill.depends_on.empty()))
          fail(field + ".fill", std::string("a") + (b->role == BufferRole::out ? "n out buffer is poisoned" : " scratch buffer is zeroed") +
                                    " before every verified launch, never filled");
        if (filled) check_fill(b->fill, b->type, field + ".fill");
        verified_output = verified_output || b->role == BufferRole::out || b->role == BufferRole::inout;
      } else {
        const auto& s = std::get<ScalarArgument>(d_.arguments[i]);
        if (lane_count(s.type) > 1)
          fail(field + ".scalar", std::string("a scalar of ") + to_string(s.type) +
                                      " is not supported: pass its lanes as scalars of " + to_string(lane_type(s.type)) +
                                      ", or make it a buffer");
        if (s.float_value) {
          if (!is_floating(s.type))
            fail(field + ".value", std::string("an integer scalar (") + to_string(s.type) +
                                       ") needs an integer expression, not " + std::to_string(*s.float_value));
          if (!std::isfinite(*s.float_value)) fail(field + ".value", "the value is not finite");
        } else {
          check_expr(s.value, field + ".value", Scope::everything);
        }
      }
    }
    if (!verified_output)
      fail("arguments", "no out or inout buffer: a kernel must write something memtune can verify");
  }

  void check_constants() const {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < d_.constants.size(); ++i) {
      const auto& c = d_.constants[i];
      const std::string field = "constants[" + std::to_string(i) + "]";
      if (!is_identifier(c.symbol)) fail(field + ".symbol", "'" + c.symbol + "' is not a symbol name");
      if (!seen.insert(c.symbol).second) fail(field + ".symbol", "the symbol '" + c.symbol + "' is listed twice");
      check_expr(c.count, field + ".count", Scope::everything);
      check_fill(c.fill, c.type, field + ".fill");
    }
  }

  void check_bytes_moved() const {
    if (d_.bytes_moved_expr) {
      check_expr(*d_.bytes_moved_expr, "bytes_moved", Scope::problem_only);
    } else {
      for (std::size_t i = 0; i < d_.arguments.size(); ++i) {
        const auto* b = std::get_if<BufferArgument>(&d_.arguments[i]);
        if (!b || b->role == BufferRole::scratch) continue;
        try {
          check_expr(b->count, "arguments[" + std::to_string(i) + "].count", Scope::problem_only);
        } catch (const DescriptionError& e) {
          fail("bytes_moved", "missing, and the default (every buffer's bytes) cannot be used: " + e.field() + " " +
                                  e.reason() + "; give bytes_moved as an expression of the problem");
        }
      }
    }
    // The defaults must give a number (no division by zero, no overflow).
    try {
      (void)d_.bytes_moved(d_.complete({}));
    } catch (const std::exception& e) {
      fail("bytes_moved", std::string("cannot be evaluated for the default problem: ") + e.what());
    }
  }

  void check_axis_value(const std::string& parameter, const nlohmann::json& value, const std::string& field) const {
    const Parameter* p = nullptr;
    for (const auto& candidate : d_.parameters)
      if (candidate.axis.name == parameter) p = &candidate;
    if (!p) fail(field, "'" + parameter + "' is not a tunable parameter");
    std::optional<std::int64_t> v;
    if (value.is_string()) v = p->axis.parse(value.get<std::string>());
    else if (value.is_boolean() && p->is_boolean()) v = value.get<bool>() ? 1 : 0;
    else if (value.is_number_integer() && p->axis.kind == search::AxisKind::ordinal && p->axis.contains(value.get<std::int64_t>()))
      v = value.get<std::int64_t>();
    if (!v) {
      std::string values;
      for (const auto x : p->axis.values) values += (values.empty() ? "" : ", ") + p->axis.format(x);
      fail(field, value.dump() + " is not a value of " + parameter + " (values: " + values + ")");
    }
  }

  void check_verify() const {
    const VerifySpec& v = d_.verify;
    if (!(v.tolerance.abs >= 0) || !(v.tolerance.rel >= 0) || !std::isfinite(v.tolerance.abs) ||
        !std::isfinite(v.tolerance.rel))
      fail("verify.tolerance", "abs and rel must be finite and >= 0");
    switch (v.mode) {
    case VerifySpec::Mode::reference_config:
      if (!v.reference_config.is_object()) fail("verify.reference_config", "must be an object {parameter: value}");
      for (const auto& [key, value] : v.reference_config.items())
        check_axis_value(key, value, "verify.reference_config." + key);
      break;
    case VerifySpec::Mode::reference_kernel: {
      if (!v.reference_kernel) fail("verify.reference_kernel", "the reference kernel is missing");
      const ReferenceKernel& k = *v.reference_kernel;
      const std::string field = "verify.reference_kernel";
      if (k.kernel.empty()) fail(field + ".kernel", "the reference kernel's name is missing");
      check_pattern(k.kernel, field + ".kernel", Scope::no_parameters);
      if (k.block.empty() || k.block.size() > 3) fail(field + ".block", "1 to 3 expressions");
      if (k.grid.empty() || k.grid.size() > 3) fail(field + ".grid", "1 to 3 expressions");
      for (std::size_t i = 0; i < k.block.size(); ++i)
        check_expr(k.block[i], field + ".block[" + std::to_string(i) + "]", Scope::no_parameters);
      for (std::size_t i = 0; i < k.grid.size(); ++i)
        check_expr(k.grid[i], field + ".grid[" + std::to_string(i) + "]", Scope::no_parameters);
      check_expr(k.shared_memory, field + ".shared_memory", Scope::no_parameters);
      break;
    }
    case VerifySpec::Mode::callback:
      if (!v.callback) fail("verify", "the callback mode needs its C++ function");
      check_parameter_list(v.depends_on, "verify.depends_on");
      break;
    case VerifySpec::Mode::host_check:
      if (!v.host_check || v.host_check->library.empty()) fail("verify.library", "the host check's library is missing");
      if (!is_identifier(v.host_check->function))
        fail("verify.function", "'" + v.host_check->function + "' is not a C function name");
      break;
    }
    std::set<std::string> reduced;
    for (std::size_t i = 0; i < v.reduced.size(); ++i) {
      const ReducedOutput& r = v.reduced[i];
      const std::string field = "verify.reduce[" + std::to_string(i) + "]";
      if (v.mode != VerifySpec::Mode::reference_config && v.mode != VerifySpec::Mode::reference_kernel)
        fail(field, "a reduced comparison compares with a reference: give reference_config or reference_kernel");
      const BufferArgument* buffer = nullptr;
      for (const auto& a : d_.arguments)
        if (const auto* b = std::get_if<BufferArgument>(&a); b && b->name == r.buffer) buffer = b;
      if (!buffer || (buffer->role != BufferRole::out && buffer->role != BufferRole::inout))
        fail(field + ".buffer", "'" + r.buffer + "' is not an out or inout buffer argument");
      if (!reduced.insert(r.buffer).second) fail(field + ".buffer", "'" + r.buffer + "' is reduced twice");
      check_expr(r.count, field + ".count", Scope::everything);
      if (r.tolerance && (!(r.tolerance->abs >= 0) || !(r.tolerance->rel >= 0) || !std::isfinite(r.tolerance->abs) ||
                          !std::isfinite(r.tolerance->rel)))
        fail(field + ".tolerance", "abs and rel must be finite and >= 0");
    }
  }

  // The "model" section: buffers exist, an access's index and guard read the
  // description's names, the thread's own (model_spec.hpp) and the locals;
  // its other fields are the same for every thread: they read the
  // description's names and the locals that read no thread name.
  void check_model() const {
    if (!d_.model) return;
    const ModelSpec& m = *d_.model;
    if (kinds_.count("iteration"))
      fail("model", "'iteration' is the model's loop index: rename the " + std::string(to_string(kinds_.at("iteration"))));
    const auto& own = model_thread_names();
    std::map<std::string, bool> locals; // declared so far -> reads a thread name (directly or through a local)
    // Whether `e` reads a thread name; fails on a name it may not read.
    const auto check = [&](const search::Expr& e, const std::string& field, bool per_thread) {
      bool reads_thread = false;
      for (const auto& n : names_read(e, field)) {
        const bool thread_name = std::find(own.begin(), own.end(), n) != own.end();
        const auto local = locals.find(n);
        const bool thread_local_value = local != locals.end() && local->second;
        if ((thread_name || thread_local_value) && !per_thread)
          fail(field, "reads '" + n + "', which differs between threads; this field is one value for the block");
        reads_thread = reads_thread || thread_name || thread_local_value;
        if (!thread_name && local == locals.end()) check_name(n, field, Scope::everything, SIZE_MAX);
      }
      return reads_thread;
    };
    for (const auto& [name, value] : m.locals) {
      const std::string field = "model.locals." + name;
      if (!is_identifier(name)) fail(field, "'" + name + "' is not a name: letters, digits and '_', not starting with a digit");
      if (kinds_.count(name) || name == "iteration")
        fail(field, "'" + name + "' is already a " + (name == "iteration" ? "name of the model" : to_string(kinds_.at(name))));
      if (locals.count(name)) fail(field, "the local '" + name + "' is defined twice");
      locals[name] = check(value, field, true);
    }
    const auto block_fields = [&](const search::Expr& vector, const search::Expr& iterations, const std::string& field) {
      check(vector, field + ".vector", false);
      check(iterations, field + ".iterations", false);
    };
    for (std::size_t i = 0; i < m.global.size(); ++i) {
      const GlobalAccessSpec& g = m.global[i];
      const std::string field = "model.global[" + std::to_string(i) + "]";
      const bool is_buffer = std::any_of(d_.arguments.begin(), d_.arguments.end(), [&](const Argument& a) {
        return std::holds_alternative<BufferArgument>(a) && argument_name(a) == g.buffer;
      });
      if (!is_buffer) fail(field + ".buffer", "'" + g.buffer + "' is not a buffer argument");
      check(g.index, field + ".index", true);
      if (g.active) check(*g.active, field + ".if", true);
      block_fields(g.vector, g.iterations, field);
    }
    for (std::size_t i = 0; i < m.shared.size(); ++i) {
      const SharedAccessSpec& s = m.shared[i];
      const std::string field = "model.shared[" + std::to_string(i) + "]";
      check(s.index, field + ".index", true);
      if (s.active) check(*s.active, field + ".if", true);
      block_fields(s.vector, s.iterations, field);
      check(s.element_bytes, field + ".element_bytes", false);
    }
    if (m.loads_in_flight) check(*m.loads_in_flight, "model.loads_in_flight", false);
    if (m.compute_per_thread) check(*m.compute_per_thread, "model.compute_per_thread", false);
    check(m.bank_bytes, "model.bank_bytes", false);
    check(m.barrier, "model.barrier", false);
  }

  void check_default() const {
    const nlohmann::json& j = d_.default_config_json;
    if (j.is_null() || (j.is_object() && j.empty())) return;
    if (!j.is_object()) fail("default", "must be an object {parameter: value}");
    for (const auto& [key, value] : j.items()) check_axis_value(key, value, "default." + key);
    for (const auto& p : d_.parameters)
      if (!j.contains(p.axis.name)) fail("default", "no value for the parameter '" + p.axis.name + "'");
  }

  const KernelDescription& d_;
  std::map<std::string, NameKind> kinds_;
  DerivedReads reads_;
};

} // namespace

void KernelDescription::validate() const { Validator(*this).run(); }

} // namespace memtune
