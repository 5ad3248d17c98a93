// KernelDescription::validate, continued (description_validator.hpp declares
// the Validator): the checks of the arguments and their fills, the constants,
// bytes moved, verification, the default configuration and the model section.
#include "description_validator.hpp"

#include <memtune/description/description_json.hpp>

#include <memtune/description/description_internal.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace memtune::description_detail {

void Validator::check_fill(const Fill& f, ElementType type, const std::string& field) const {
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
  if (f.sum_abs) {
    if (f.kind != Fill::Kind::random || !is_floating(lane_type(type)))
      fail(field + ".sum_abs", "only a random fill of floating-point values is scaled to a sum of magnitudes");
    if (!std::isfinite(*f.sum_abs) || !(*f.sum_abs > 0))
      fail(field + ".sum_abs", "must be a finite number > 0 (the sum of the values' magnitudes)");
    check_representable(*f.sum_abs, type, field + ".sum_abs"); // no value can exceed the sum
  }
  if (!f.depends_on.empty() && f.kind != Fill::Kind::custom)
    fail(field + ".depends_on", "only a custom fill depends on parameters (random and constant fills never do)");
  check_parameter_list(f.depends_on, field + ".depends_on");
}

void Validator::check_representable(double v, ElementType vector, const std::string& field) const {
  if (const auto why = representable_violation(v, vector)) fail(field, *why);
}

void Validator::check_parameter_list(const std::vector<std::string>& names, const std::string& field) const {
  for (const auto& n : names) {
    const auto kind = kinds_.find(n);
    if (kind == kinds_.end() || kind->second != NameKind::parameter)
      fail(field, "'" + n + "' is not a tunable parameter");
  }
}

void Validator::check_arguments() const {
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

void Validator::check_constants() const {
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

void Validator::check_bytes_moved() const {
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
  } catch (const DerivedValueError& e) { // a derived value, whether or not bytes_moved reads it
    fail(e.field(), "cannot be evaluated for the default problem: " + e.reason());
  } catch (const std::exception& e) {
    fail("bytes_moved", std::string("cannot be evaluated for the default problem: ") + e.what());
  }
}

void Validator::check_axis_value(const std::string& parameter, const nlohmann::json& value, const std::string& field) const {
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

void Validator::check_verify() const {
  const VerifySpec& v = d_.verify;
  if (!(v.tolerance.abs >= 0) || !(v.tolerance.rel >= 0) || !std::isfinite(v.tolerance.abs) ||
      !std::isfinite(v.tolerance.rel))
    fail("verify.tolerance", "abs and rel must be finite and >= 0");
  check_expr(v.tolerance_terms, "verify.tolerance.terms", Scope::problem_only);
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
    check_parameter_list(v.depends_on, "verify.depends_on");
    // With depends_on it reads those axes (evaluated on their values only:
    // another parameter is an error naming the field when the run starts).
    const Scope scope = v.depends_on.empty() ? Scope::no_parameters : Scope::everything;
    if (k.kernel.empty()) fail(field + ".kernel", "the reference kernel's name is missing");
    check_pattern(k.kernel, field + ".kernel", scope);
    if (k.block.empty() || k.block.size() > 3) fail(field + ".block", "1 to 3 expressions");
    if (k.grid.empty() || k.grid.size() > 3) fail(field + ".grid", "1 to 3 expressions");
    for (std::size_t i = 0; i < k.block.size(); ++i)
      check_expr(k.block[i], field + ".block[" + std::to_string(i) + "]", scope);
    for (std::size_t i = 0; i < k.grid.size(); ++i)
      check_expr(k.grid[i], field + ".grid[" + std::to_string(i) + "]", scope);
    check_expr(k.shared_memory, field + ".shared_memory", scope);
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
void Validator::check_model() const {
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

void Validator::check_baselines() const {
  // Named pairs, not structured bindings: the lambdas below read them (clang 14 cannot capture a binding).
  for (const auto& entry : d_.baselines) {
    const std::string& name = entry.first;
    const LibraryBaseline& b = entry.second;
    const std::string field = "baselines." + name;
    if (!is_identifier(name)) fail(field, "'" + name + "' is not a name (letters, digits and '_')");
    const auto& calls = library_baseline_calls();
    const auto call = std::find_if(calls.begin(), calls.end(), [&](const auto& c) { return c.name == b.call; });
    if (call == calls.end()) {
      std::string known;
      for (const auto& c : calls) known += (known.empty() ? "" : ", ") + c.name;
      fail(field + ".call", "'" + b.call + "' is not a baseline memtune provides (known: " + known + ")");
    }
    const auto same_operands = [&](const auto& given, const std::vector<std::string>& needed, const std::string& what) {
      std::string list;
      for (const auto& n : needed) list += (list.empty() ? "" : ", ") + n;
      bool same = given.size() == needed.size();
      for (const auto& n : needed) same = same && given.contains(n);
      if (!same) fail(field + "." + what, b.call + " needs exactly the " + what + " " + list);
    };
    same_operands(b.buffers, call->buffers, "buffers");
    same_operands(b.values, call->values, "values");
    for (const auto& binding : b.buffers) {
      const std::string& operand = binding.first;
      const std::string& buffer = binding.second;
      const bool known = std::any_of(d_.arguments.begin(), d_.arguments.end(), [&](const Argument& a) {
        return std::holds_alternative<BufferArgument>(a) && argument_name(a) == buffer;
      });
      if (!known) fail(field + ".buffers." + operand, "'" + buffer + "' is not a buffer argument");
    }
    for (const auto& [operand, value] : b.values) check_expr(value, field + ".values." + operand, Scope::problem_only);
  }
}

void Validator::check_default() const {
  const nlohmann::json& j = d_.default_config_json;
  if (j.is_null() || (j.is_object() && j.empty())) return;
  if (!j.is_object()) fail("default", "must be an object {parameter: value}");
  for (const auto& [key, value] : j.items()) check_axis_value(key, value, "default." + key);
  for (const auto& p : d_.parameters)
    if (!j.contains(p.axis.name)) fail("default", "no value for the parameter '" + p.axis.name + "'");
}

} // namespace memtune::description_detail
