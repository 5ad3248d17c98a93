// A description as a file (the format description_json.hpp reads back), and
// its fingerprint.
#include <memtune/description/kernel_description.hpp>

#include <memtune/io/digest.hpp>
#include <memtune/description/description_internal.hpp>

#include <algorithm>

namespace memtune {

namespace {

using nlohmann::ordered_json;

ordered_json expr_json(const search::Expr& e) {
  if (e.is_constant()) return e.constant_value();
  return e.to_string();
}

ordered_json dims_json(const std::vector<search::Expr>& dims) {
  ordered_json out = ordered_json::array();
  for (const auto& e : dims) out.push_back(expr_json(e));
  return out;
}

ordered_json fill_json(const Fill& f) {
  ordered_json j = ordered_json::object();
  switch (f.kind) {
  case Fill::Kind::random:
    if (!f.lo && !f.sum_abs) return "random";
    j["random"] = {f.lo.value_or(-1.0), f.hi.value_or(1.0)};
    if (f.sum_abs) j["sum_abs"] = *f.sum_abs;
    break;
  case Fill::Kind::constant: j["constant"] = f.value; break;
  case Fill::Kind::custom: j["custom"] = "C++"; break; // not readable from a file: a built-in's hook
  }
  if (!f.depends_on.empty()) j["depends_on"] = f.depends_on;
  return j;
}

ordered_json tolerance_json(const Tolerance& t) { return {{"abs", t.abs}, {"rel", t.rel}}; }

ordered_json problem_json(const ProblemParameter& p) {
  ordered_json j = ordered_json::object();
  if (!p.labels.empty()) {
    j["values"] = p.labels;
    j["default"] = p.labels.at(static_cast<std::size_t>(p.default_value));
  } else {
    j["default"] = p.default_value;
    j["min"] = p.min;
    if (p.max != INT64_MAX) j["max"] = p.max;
    if (p.is_size) j["size"] = true;
  }
  if (!p.description.empty()) j["description"] = p.description;
  return j;
}

ordered_json parameter_json(const Parameter& p) {
  ordered_json j = ordered_json::object();
  if (p.is_boolean()) j["values"] = "bool";
  else if (p.axis.kind == search::AxisKind::categorical) j["values"] = p.axis.labels;
  else j["values"] = p.axis.values;
  if (!p.axis.description.empty()) j["description"] = p.axis.description;
  if (p.only_if) j["only_if"] = p.only_if->to_string();
  if (!p.pruned_reason.empty()) j["pruned_reason"] = p.pruned_reason;
  if (p.values_if) j["values_if"] = p.values_if->to_string();
  return j;
}

ordered_json argument_json(const Argument& a) {
  ordered_json j{{"name", argument_name(a)}};
  if (const auto* b = std::get_if<BufferArgument>(&a)) {
    j["buffer"] = b->type_from.empty() ? std::string(to_string(b->type)) : "{" + b->type_from + "}";
    j["count"] = expr_json(b->count);
    if (!b->offset.is_constant() || b->offset.constant_value() != 0) j["offset"] = expr_json(b->offset);
    j["role"] = to_string(b->role);
    if (b->role == BufferRole::in || b->role == BufferRole::inout) j["fill"] = fill_json(b->fill);
    if (b->partial) j["partial"] = true;
  } else {
    const auto& s = std::get<ScalarArgument>(a);
    j["scalar"] = to_string(s.type);
    if (s.float_value) j["value"] = *s.float_value;
    else j["value"] = expr_json(s.value);
    if (s.from_caller) j["from_caller"] = true;
  }
  return j;
}

// write_tolerance: false where the tolerance was not given and an output's
// type would loosen it (half, bfloat16), so that reading the file back keeps
// the per-type defaults.
ordered_json verify_json(const VerifySpec& v, bool write_tolerance) {
  ordered_json j = ordered_json::object();
  switch (v.mode) {
  case VerifySpec::Mode::host_check:
    j["library"] = v.host_check->library.string();
    j["function"] = v.host_check->function;
    return j;
  case VerifySpec::Mode::reference_config: j["reference_config"] = ordered_json::parse(v.reference_config.dump()); break;
  case VerifySpec::Mode::reference_kernel: {
    const ReferenceKernel& k = *v.reference_kernel;
    ordered_json rk{{"kernel", k.kernel}};
    if (!k.files.empty()) {
      rk["files"] = ordered_json::array();
      for (const auto& f : k.files) rk["files"].push_back(f.name);
    }
    rk["block"] = dims_json(k.block);
    rk["grid"] = dims_json(k.grid);
    if (!k.shared_memory.is_constant() || k.shared_memory.constant_value() != 0)
      rk["shared_memory"] = expr_json(k.shared_memory);
    j["reference_kernel"] = std::move(rk);
    if (!v.depends_on.empty()) j["depends_on"] = v.depends_on;
    break;
  }
  case VerifySpec::Mode::callback:
    j["callback"] = "C++"; // not readable from a file: the built-ins' references
    if (!v.depends_on.empty()) j["depends_on"] = v.depends_on;
    return j;
  }
  if (write_tolerance) j["tolerance"] = tolerance_json(v.tolerance);
  if (!v.tolerance_terms.is_constant() || v.tolerance_terms.constant_value() != 1) {
    if (!write_tolerance) j["tolerance"] = ordered_json::object();
    j["tolerance"]["terms"] = expr_json(v.tolerance_terms);
  }
  if (!v.reduced.empty()) {
    ordered_json list = ordered_json::array();
    for (const ReducedOutput& r : v.reduced) {
      ordered_json e{{"buffer", r.buffer}, {"op", to_string(r.op)}, {"count", expr_json(r.count)}};
      if (r.tolerance) e["tolerance"] = tolerance_json(*r.tolerance);
      list.push_back(std::move(e));
    }
    j["reduce"] = std::move(list);
  }
  return j;
}

ordered_json access_json(const std::string& name, model::AccessKind kind, const search::Expr& index,
                         const search::Expr& vector, const search::Expr& iterations,
                         const std::optional<search::Expr>& active) {
  ordered_json j{{"name", name}, {"access", kind == model::AccessKind::load ? "load" : "store"}, {"index", index.to_string()}};
  j["vector"] = expr_json(vector);
  j["iterations"] = expr_json(iterations);
  if (active) j["if"] = active->to_string();
  return j;
}

ordered_json model_json(const ModelSpec& m) {
  ordered_json j = ordered_json::object();
  if (!m.locals.empty()) {
    j["locals"] = ordered_json::object();
    for (const auto& [name, value] : m.locals) j["locals"][name] = value.to_string();
  }
  if (!m.global.empty()) {
    j["global"] = ordered_json::array();
    for (const auto& g : m.global) {
      ordered_json a = access_json(g.name, g.kind, g.index, g.vector, g.iterations, g.active);
      a["buffer"] = g.buffer;
      if (g.kind == model::AccessKind::load)
        a["cache"] = g.path == GlobalPath::read_only ? "read_only" : g.path == GlobalPath::l2_only ? "l2_only" : "default";
      j["global"].push_back(std::move(a));
    }
  }
  if (!m.shared.empty()) {
    j["shared"] = ordered_json::array();
    for (const auto& s : m.shared) {
      ordered_json a = access_json(s.name, s.kind, s.index, s.vector, s.iterations, s.active);
      a["element_bytes"] = expr_json(s.element_bytes);
      j["shared"].push_back(std::move(a));
    }
  }
  if (m.loads_in_flight) j["loads_in_flight"] = expr_json(*m.loads_in_flight);
  if (m.compute_per_thread) j["compute_per_thread"] = expr_json(*m.compute_per_thread);
  j["barrier"] = expr_json(m.barrier);
  j["bank_bytes"] = expr_json(m.bank_bytes);
  return j;
}

} // namespace

nlohmann::ordered_json KernelDescription::to_json() const {
  ordered_json j{{"schema_version", kDescriptionSchemaVersion}, {"name", name}};
  if (!summary.empty()) j["summary"] = summary;

  ordered_json src = ordered_json::object();
  src["files"] = ordered_json::array();
  for (const auto& f : source.files) src["files"].push_back(f.name);
  if (!source.include_paths.empty()) src["include_paths"] = source.include_paths;
  if (!source.options.empty()) src["options"] = source.options;
  if (source.compiler != CompilerKind::automatic) src["compiler"] = to_string(source.compiler);
  if (source.kernel_if.empty()) {
    src["kernel"] = source.kernel;
  } else {
    ordered_json choices = ordered_json::array();
    for (const auto& c : source.kernel_if) choices.push_back({{"if", c.condition.to_string()}, {"name", c.kernel}});
    choices.push_back({{"name", source.kernel}});
    src["kernel"] = std::move(choices);
  }
  if (!source.defines.empty()) {
    ordered_json defines = ordered_json::object();
    for (const auto& [macro, value] : source.defines) defines[macro] = value;
    src["defines"] = std::move(defines);
  }
  j["source"] = std::move(src);

  ordered_json prob = ordered_json::object();
  for (const auto& p : problem) prob[p.name] = problem_json(p);
  j["problem"] = std::move(prob);
  ordered_json params = ordered_json::object();
  for (const auto& p : parameters) params[p.axis.name] = parameter_json(p);
  j["parameters"] = std::move(params);
  if (!derived.empty()) {
    ordered_json dv = ordered_json::object();
    for (const auto& v : derived) dv[v.name] = v.value.to_string();
    j["derived"] = std::move(dv);
  }
  ordered_json cons = ordered_json::array();
  for (const auto& c : constraints) {
    if (c.reason.empty() && c.same_as.empty()) {
      cons.push_back(c.condition.to_string());
      continue;
    }
    ordered_json one = {{"expr", c.condition.to_string()}};
    if (!c.reason.empty()) one["reason"] = c.reason;
    if (!c.same_as.empty()) {
      ordered_json same = ordered_json::object();
      for (const auto& pair : c.same_as) {
        const std::string& name = pair.first; // captured below: a binding cannot be, with clang 14
        const std::string& value = pair.second;
        // An ordinal parameter's value as the number it is, a label as text.
        const auto p = std::find_if(parameters.begin(), parameters.end(),
                                    [&](const Parameter& q) { return q.axis.name == name; });
        const auto number = p != parameters.end() && p->axis.kind == search::AxisKind::ordinal ? p->axis.parse(value)
                                                                                               : std::nullopt;
        if (number) same[name] = *number;
        else same[name] = value;
      }
      one["same_as"] = std::move(same);
    }
    cons.push_back(std::move(one));
  }
  j["constraints"] = std::move(cons);

  const auto& l = launch_exprs;
  j["launch"] = {{"block", dims_json({l.block_x, l.block_y, l.block_z})},
                 {"grid", dims_json({l.grid_x, l.grid_y, l.grid_z})},
                 {"shared_memory", expr_json(l.shared_memory)}};
  if (l.cooperative) j["launch"]["cooperative"] = true; // absent otherwise: older fingerprints stay
  ordered_json args = ordered_json::array();
  for (const auto& a : arguments) args.push_back(argument_json(a));
  j["arguments"] = std::move(args);
  if (!constants.empty()) {
    ordered_json consts = ordered_json::array();
    for (const auto& c : constants)
      consts.push_back({{"symbol", c.symbol}, {"type", to_string(c.type)}, {"count", expr_json(c.count)},
                        {"fill", fill_json(c.fill)}, {"from_caller", c.from_caller}});
    j["constants"] = std::move(consts);
  }
  if (bytes_moved_expr) j["bytes_moved"] = expr_json(*bytes_moved_expr);
  bool coarse_output = false;
  for (const auto& a : arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a))
      coarse_output = coarse_output || default_relative_tolerance(b->type) > verify.tolerance.rel;
  j["verify"] = verify_json(verify, verify.tolerance_given || !coarse_output);
  if (!baselines.empty()) {
    ordered_json list = ordered_json::object();
    for (const auto& [name, b] : baselines) {
      ordered_json values = ordered_json::object();
      for (const auto& [operand, value] : b.values) values[operand] = expr_json(value);
      list[name] = {{"call", b.call}, {"buffers", b.buffers}, {"values", std::move(values)}};
    }
    j["baselines"] = std::move(list);
  }
  if (default_config_json.is_object() && !default_config_json.empty())
    j["default"] = ordered_json::parse(default_config_json.dump());
  if (model) j["model"] = model_json(*model);
  return j;
}

nlohmann::ordered_json KernelDescription::to_data() const {
  const auto files_json = [](const std::vector<SourceFile>& files) {
    ordered_json list = ordered_json::array();
    for (const auto& f : files) list.push_back({{"name", f.name}, {"text", f.text}, {"path", f.path}});
    return list;
  };
  ordered_json data{{"description", to_json()}, {"source_files", files_json(source.files)}};
  if (verify.reference_kernel) data["reference_files"] = files_json(verify.reference_kernel->files);
  return data;
}

std::string KernelDescription::not_data_because() const {
  if (verify.mode == VerifySpec::Mode::callback)
    return "its verification is a C++ callback (KernelBuilder::verify_with)";
  for (const auto& a : arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a); b && b->fill.kind == Fill::Kind::custom)
      return "argument '" + b->name + "' is filled by a C++ function";
  for (const auto& c : constants)
    if (c.fill.kind == Fill::Kind::custom) return "constant '" + c.symbol + "' is filled by a C++ function";
  if (!hooks.baselines.empty()) return "baseline '" + hooks.baselines.begin()->first + "' is a C++ function";
  return "";
}

std::string KernelDescription::fingerprint() const {
  // The model section changes what is predicted, never what is measured: a
  // journal or recording stays this kernel's when it is added or edited.
  ordered_json j = to_json();
  j.erase("model");
  // Nor does a constraint's same_as (which duplicate the lookup maps to which
  // configuration): the same space, the same kernels.
  for (auto& c : j["constraints"])
    if (c.is_object()) c.erase("same_as");
  std::string text = j.dump();
  const auto add_files = [&](const std::vector<SourceFile>& files) {
    for (const auto& f : files) text += "\n--- " + f.name + " " + std::to_string(f.text.size()) + "\n" + f.text;
  };
  add_files(source.files);
  if (verify.reference_kernel) add_files(verify.reference_kernel->files);
  return digest128(text);
}

} // namespace memtune
