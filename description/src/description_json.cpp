// Reads a kernel description file (format: description_json.hpp and
// docs/kernel-description.md). Strict: unknown fields, wrong types and
// duplicate keys are errors naming the file, the JSON path and the reason.
#include <memtune/description/description_json.hpp>
#include <memtune/io/json_document.hpp>

#include "description_fields.hpp"
#include <memtune/description/description_internal.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace memtune {

DescriptionError::DescriptionError(std::string file, std::string field, std::string reason)
    : InputError(std::move(file), 0, std::move(field), std::move(reason)) {}

DescriptionError::DescriptionError(std::string file, std::size_t line, std::string reason)
    : InputError(std::move(file), line, "", std::move(reason)) {}

namespace {

using nlohmann::ordered_json;
using description_detail::explain_syntax_error;

class Reader : description_detail::FieldReader {
public:
  Reader(std::string origin, std::filesystem::path base) : FieldReader(std::move(origin)), base_(std::move(base)) {}
  // Source files from to_data()'s lists instead of the disk: {"source.files": [...], "verify.reference_kernel.files": [...]}.
  Reader(std::string origin, std::map<std::string, std::vector<SourceFile>> embedded)
      : FieldReader(std::move(origin)), embedded_(std::move(embedded)) {}

  KernelDescription read(const ordered_json& doc) {
    KernelDescription d;
    d.origin = origin_;
    fields(doc, "", {"schema_version", "name", "summary", "source", "problem", "parameters", "derived", "constraints",
                     "launch", "arguments", "constants", "bytes_moved", "verify", "baselines", "default", "objective", "model"});
    if (!doc.contains("schema_version")) fail("schema_version", "missing (this format is schema_version 1)");
    const auto& version = doc.at("schema_version");
    if (!version.is_number_integer())
      fail("schema_version", "expected the integer 1, got " + describe(version));
    if (version.get<std::int64_t>() != kDescriptionSchemaVersion)
      fail("schema_version", version.dump() + " is not supported (this memtune reads schema_version 1)");
    d.name = string(required(doc, "name", ""), "name");
    if (doc.contains("summary")) d.summary = string(doc.at("summary"), "summary");
    read_source(required(doc, "source", ""), d.source);
    if (doc.contains("problem")) read_problem(doc.at("problem"), d);
    read_parameters(required(doc, "parameters", ""), d);
    if (doc.contains("derived")) {
      const auto& derived = object(doc.at("derived"), "derived");
      for (const auto& [name, value] : derived.items()) d.derived.push_back({name, expr(value, "derived." + name)});
    }
    if (doc.contains("constraints")) read_constraints(doc.at("constraints"), d);
    read_launch(required(doc, "launch", ""), d.launch_exprs);
    const auto& args = array(required(doc, "arguments", ""), "arguments");
    for (std::size_t i = 0; i < args.size(); ++i)
      d.arguments.push_back(argument(args[i], "arguments[" + std::to_string(i) + "]", d.problem));
    if (doc.contains("constants")) {
      const auto& consts = array(doc.at("constants"), "constants");
      for (std::size_t i = 0; i < consts.size(); ++i)
        d.constants.push_back(constant(consts[i], "constants[" + std::to_string(i) + "]"));
    }
    if (doc.contains("bytes_moved")) d.bytes_moved_expr = expr(doc.at("bytes_moved"), "bytes_moved");
    if (!doc.contains("verify"))
      fail("verify", "missing: say how outputs are checked: {\"reference_config\": {...}} (one configuration of this "
                     "kernel is the truth) or {\"reference_kernel\": {...}} (a separate kernel)");
    read_verify(doc.at("verify"), d.verify);
    if (doc.contains("baselines")) d.baselines = description_detail::read_baselines(*this, doc.at("baselines"));
    if (doc.contains("default")) d.default_config_json = nlohmann::json::parse(object(doc.at("default"), "default").dump());
    if (doc.contains("objective")) {
      d.objective = string(doc.at("objective"), "objective");
      if (d.objective != "time" && d.objective != "energy" && d.objective != "edp")
        fail("objective", describe(doc.at("objective")) + " is not an objective: time, energy or edp");
    }
    if (doc.contains("model")) d.model = description_detail::read_model_section(*this, doc.at("model"));
    d.validate();
    return d;
  }

private:
  std::vector<search::Expr> dims(const ordered_json& j, const std::string& path) const {
    if (!j.is_array()) return {expr(j, path)};
    if (j.empty() || j.size() > 3) fail(path, "1 to 3 expressions (x, y, z), got " + std::to_string(j.size()));
    std::vector<search::Expr> out;
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(expr(j[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }

  std::string pattern(const ordered_json& j, const std::string& path) const {
    if (j.is_number_integer()) return j.dump();
    return string(j, path);
  }

  std::vector<SourceFile> files(const ordered_json& j, const std::string& path) const {
    std::vector<SourceFile> out;
    const auto names = strings(j, path);
    if (names.empty()) fail(path, "no file: the first one is compiled");
    if (embedded_) {
      const auto& given = embedded_->at(path);
      if (given.size() != names.size())
        fail(path, std::to_string(names.size()) + " files named, " + std::to_string(given.size()) + " given as data");
      for (std::size_t i = 0; i < names.size(); ++i)
        if (given[i].name != names[i])
          fail(path + "[" + std::to_string(i) + "]", "'" + names[i] + "' named, '" + given[i].name + "' given as data");
      return given;
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::filesystem::path file = base_ / names[i];
      std::string text;
      try {
        // A regular file of at most 64 MiB: a FIFO would block, /dev/zero would never end.
        text = io::read_text_file(file, std::uintmax_t{64} << 20);
      } catch (const InputError& e) {
        fail(path + "[" + std::to_string(i) + "]", "cannot read " + file.string() + ": " + e.message() +
                                                       " (paths are relative to the description's folder)");
      }
      out.push_back({names[i], std::move(text), file.string()});
    }
    return out;
  }

  void read_source(const ordered_json& j, SourceSpec& s) const {
    fields(j, "source", {"files", "include_paths", "options", "kernel", "defines", "compiler"});
    s.files = files(required(j, "files", "source"), "source.files");
    if (j.contains("include_paths"))
      for (const auto& p : strings(j.at("include_paths"), "source.include_paths"))
        s.include_paths.push_back((base_ / p).lexically_normal().string());
    if (j.contains("options")) s.options = strings(j.at("options"), "source.options");
    if (j.contains("compiler")) {
      try {
        s.compiler = compiler_kind_from_string(string(j.at("compiler"), "source.compiler"));
      } catch (const std::invalid_argument& e) {
        fail("source.compiler", e.what());
      }
    }
    const auto& kernel = required(j, "kernel", "source");
    if (kernel.is_array()) {
      // [{"if": condition, "name": pattern}, ..., {"name": pattern}]: the first whose condition holds.
      if (kernel.empty()) fail("source.kernel", "an empty list: give a name, or choices ending with one without \"if\"");
      for (std::size_t i = 0; i < kernel.size(); ++i) {
        const std::string path = "source.kernel[" + std::to_string(i) + "]";
        const bool last = i + 1 == kernel.size();
        const auto& choice = last ? fields(kernel[i], path, {"name"}) : fields(kernel[i], path, {"if", "name"});
        std::string name = pattern(required(choice, "name", path), path + ".name");
        if (last) s.kernel = std::move(name);
        else s.kernel_if.push_back({expr(required(choice, "if", path), path + ".if"), std::move(name)});
      }
    } else {
      s.kernel = string(kernel, "source.kernel");
    }
    if (!j.contains("defines")) return;
    const auto& defines = j.at("defines");
    if (defines.is_array()) {
      for (const auto& macro : strings(defines, "source.defines")) s.defines.emplace_back(macro, "{" + macro + "}");
    } else {
      for (const auto& [macro, value] : object(defines, "source.defines").items())
        s.defines.emplace_back(macro, pattern(value, "source.defines." + macro));
    }
  }

  void read_problem(const ordered_json& j, KernelDescription& d) const {
    for (const auto& [name, spec] : object(j, "problem").items()) {
      const std::string path = "problem." + name;
      ProblemParameter p;
      p.name = name;
      if (!spec.is_object()) { // "n": "16M" is a default alone
        p.default_value = integer(spec, path);
        d.problem.push_back(std::move(p));
        continue;
      }
      fields(spec, path, {"default", "min", "max", "size", "description", "values"});
      if (spec.contains("description")) p.description = string(spec.at("description"), path + ".description");
      if (spec.contains("values")) {
        for (const char* numeric : {"min", "max", "size"})
          if (spec.contains(numeric)) fail(path + "." + numeric, "a choice (values) has no " + std::string(numeric));
        p.labels = strings(spec.at("values"), path + ".values");
        if (p.labels.empty()) fail(path + ".values", "a choice needs at least one label");
        p.min = 0;
        p.max = static_cast<std::int64_t>(p.labels.size()) - 1;
        const std::string label = spec.contains("default") ? string(spec.at("default"), path + ".default") : p.labels[0];
        const auto it = std::find(p.labels.begin(), p.labels.end(), label);
        if (it == p.labels.end()) fail(path + ".default", "\"" + label + "\" is not one of: " + join(p.labels));
        p.default_value = it - p.labels.begin();
      } else {
        p.default_value = integer(required(spec, "default", path), path + ".default");
        if (spec.contains("min")) p.min = integer(spec.at("min"), path + ".min");
        if (spec.contains("max")) p.max = integer(spec.at("max"), path + ".max");
        if (spec.contains("size")) p.is_size = boolean(spec.at("size"), path + ".size");
      }
      d.problem.push_back(std::move(p));
    }
  }

  search::Axis axis(const std::string& name, const ordered_json& values, const std::string& description,
                    const std::string& path) const {
    if (values.is_string()) {
      if (values.get<std::string>() != "bool")
        fail(path, "expected \"bool\", or an array of integers or of labels, got " + describe(values));
      return search::Axis::categorical(name, {"false", "true"}, description);
    }
    const auto& a = array(values, path);
    if (a.empty()) fail(path, "a parameter needs at least one value");
    if (a[0].is_string()) {
      return search::Axis::categorical(name, strings(a, path), description);
    }
    std::vector<std::int64_t> ints;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string item = path + "[" + std::to_string(i) + "]";
      if (!a[i].is_number_integer()) fail(item, "expected an integer like the first value, got " + describe(a[i]));
      ints.push_back(integer(a[i], item));
    }
    for (std::size_t i = 1; i < ints.size(); ++i)
      if (ints[i] <= ints[i - 1])
        fail(path, "integer values must be strictly increasing (the grid's order): " + std::to_string(ints[i]) +
                       " after " + std::to_string(ints[i - 1]));
    return search::Axis::ordinal(name, std::move(ints), description);
  }

  void read_parameters(const ordered_json& j, KernelDescription& d) const {
    for (const auto& [name, spec] : object(j, "parameters").items()) {
      const std::string path = "parameters." + name;
      Parameter p;
      if (!spec.is_object()) {
        p.axis = axis(name, spec, {}, path);
      } else {
        fields(spec, path, {"values", "description", "only_if", "pruned_reason", "values_if"});
        const std::string description =
            spec.contains("description") ? string(spec.at("description"), path + ".description") : std::string{};
        p.axis = axis(name, required(spec, "values", path), description, path + ".values");
        if (spec.contains("only_if")) p.only_if = expr(spec.at("only_if"), path + ".only_if");
        if (spec.contains("pruned_reason")) p.pruned_reason = string(spec.at("pruned_reason"), path + ".pruned_reason");
        if (!p.only_if && !p.pruned_reason.empty()) fail(path + ".pruned_reason", "only a parameter with only_if is pruned");
        if (spec.contains("values_if")) p.values_if = expr(spec.at("values_if"), path + ".values_if");
      }
      d.parameters.push_back(std::move(p));
    }
  }

  void read_constraints(const ordered_json& j, KernelDescription& d) const {
    const auto& a = array(j, "constraints");
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string path = "constraints[" + std::to_string(i) + "]";
      if (a[i].is_object()) {
        fields(a[i], path, {"expr", "reason", "same_as"});
        ConstraintSpec c{expr(required(a[i], "expr", path), path + ".expr"),
                         a[i].contains("reason") ? string(a[i].at("reason"), path + ".reason") : std::string{}, {}};
        if (a[i].contains("same_as")) {
          // {"ZFILL": 0}: values as the parameter's axis reads them (a number or a label).
          for (const auto& [name, value] : object(a[i].at("same_as"), path + ".same_as").items()) {
            if (value.is_number_integer()) c.same_as.emplace_back(name, std::to_string(value.get<std::int64_t>()));
            else if (value.is_boolean()) c.same_as.emplace_back(name, value.get<bool>() ? "1" : "0");
            else if (value.is_string()) c.same_as.emplace_back(name, value.get<std::string>());
            else fail(path + ".same_as." + name, "expected a whole number, true/false or a value's label (a string), got " +
                                                     std::string(value.type_name()));
          }
          if (c.same_as.empty()) fail(path + ".same_as", "names no parameter: give {\"PARAMETER\": value, ...} or leave it out");
        }
        d.constraints.push_back(std::move(c));
      } else {
        d.constraints.push_back({expr(a[i], path), {}});
      }
    }
  }

  void read_launch(const ordered_json& j, LaunchExprs& l) const {
    fields(j, "launch", {"block", "grid", "shared_memory", "cooperative"});
    const auto block = dims(required(j, "block", "launch"), "launch.block");
    const auto grid = dims(required(j, "grid", "launch"), "launch.grid");
    l.block_x = block[0];
    if (block.size() > 1) l.block_y = block[1];
    if (block.size() > 2) l.block_z = block[2];
    l.grid_x = grid[0];
    if (grid.size() > 1) l.grid_y = grid[1];
    if (grid.size() > 2) l.grid_z = grid[2];
    if (j.contains("shared_memory")) l.shared_memory = expr(j.at("shared_memory"), "launch.shared_memory");
    if (j.contains("cooperative")) l.cooperative = boolean(j.at("cooperative"), "launch.cooperative");
  }

  ElementType type(const ordered_json& j, const std::string& path) const {
    const std::string text = string(j, path);
    if (const auto t = element_type_from_string(text)) return *t;
    fail(path, "unknown element type '" + text + "' (float, double, half, bfloat16, int8 ... int64, uint8 ... uint64, "
               "C names such as int, unsigned, or CUDA vector types such as float4, half2, int2)");
  }

  // "{T}": the element type is the label of the problem enumeration T.
  void buffer_type(const ordered_json& j, const std::string& path, const std::vector<ProblemParameter>& problem,
                   BufferArgument& b) const {
    const std::string text = string(j, path);
    if (text.size() < 3 || text.front() != '{' || text.back() != '}') {
      b.type = type(j, path);
      return;
    }
    b.type_from = text.substr(1, text.size() - 2);
    for (const auto& p : problem) {
      if (p.name != b.type_from) continue;
      if (p.labels.empty())
        fail(path, "'" + b.type_from + "' is a number, not a problem enumeration of element types "
                   "(\"" + b.type_from + "\": {\"values\": [\"int\", \"float\"]})");
      for (const auto& label : p.labels)
        if (!element_type_from_string(label))
          fail("problem." + p.name + ".values", "'" + label + "' is not an element type, but " + path + " takes its type from " +
                                                   p.name);
      b.type = *element_type_from_string(p.labels.at(static_cast<std::size_t>(p.default_value)));
      return;
    }
    fail(path, "'" + b.type_from + "' is not a problem variable: an element type in braces names a problem enumeration "
               "whose labels are element types");
  }

  Fill fill(const ordered_json& j, const std::string& path) const {
    Fill f;
    if (j.is_string()) {
      if (j.get<std::string>() != "random") fail(path, "expected \"random\", {\"random\": [lo, hi]} or {\"constant\": v}");
      return f;
    }
    fields(j, path, {"random", "constant", "sum_abs"});
    if (j.contains("random") == j.contains("constant")) fail(path, "one of random or constant");
    if (j.contains("random")) {
      const auto& range = array(j.at("random"), path + ".random");
      if (range.size() != 2) fail(path + ".random", "expected [lo, hi]");
      f.lo = number(range[0], path + ".random[0]");
      f.hi = number(range[1], path + ".random[1]");
      if (j.contains("sum_abs")) f.sum_abs = number(j.at("sum_abs"), path + ".sum_abs");
    } else {
      if (j.contains("sum_abs")) fail(path + ".sum_abs", "only a random fill is scaled to a sum of magnitudes");
      f.kind = Fill::Kind::constant;
      f.value = number(j.at("constant"), path + ".constant");
    }
    return f;
  }

  Argument argument(const ordered_json& j, const std::string& path, const std::vector<ProblemParameter>& problem) const {
    object(j, path);
    if (j.contains("buffer") == j.contains("scalar"))
      fail(path, "an argument is either {\"buffer\": TYPE, ...} or {\"scalar\": TYPE, ...}");
    if (j.contains("buffer")) {
      fields(j, path, {"name", "buffer", "count", "offset", "role", "fill", "partial"});
      BufferArgument b;
      b.name = string(required(j, "name", path), path + ".name");
      buffer_type(j.at("buffer"), path + ".buffer", problem, b);
      b.count = expr(required(j, "count", path), path + ".count");
      if (j.contains("offset")) b.offset = expr(j.at("offset"), path + ".offset");
      if (j.contains("partial")) b.partial = boolean(j.at("partial"), path + ".partial");
      const std::string role = string(required(j, "role", path), path + ".role");
      if (role == "in") b.role = BufferRole::in;
      else if (role == "out") b.role = BufferRole::out;
      else if (role == "inout") b.role = BufferRole::inout;
      else if (role == "scratch") b.role = BufferRole::scratch;
      else fail(path + ".role", "'" + role + "' is not a role (in, out, inout, scratch)");
      if (j.contains("fill")) {
        if (b.role == BufferRole::out || b.role == BufferRole::scratch)
          fail(path + ".fill", std::string(b.role == BufferRole::out ? "an out buffer is poisoned" : "a scratch buffer is zeroed") +
                                   " before every verified launch, never filled");
        b.fill = fill(j.at("fill"), path + ".fill");
      }
      return b;
    }
    fields(j, path, {"name", "scalar", "value", "from_caller"});
    ScalarArgument s;
    s.name = string(required(j, "name", path), path + ".name");
    s.type = type(j.at("scalar"), path + ".scalar");
    const auto& value = required(j, "value", path);
    if (value.is_number_float()) s.float_value = value.get<double>();
    else if (value.is_number_integer() && is_floating(s.type)) s.float_value = value.get<double>();
    else s.value = expr(value, path + ".value");
    if (j.contains("from_caller")) s.from_caller = boolean(j.at("from_caller"), path + ".from_caller");
    return s;
  }

  ConstantSymbol constant(const ordered_json& j, const std::string& path) const {
    fields(j, path, {"symbol", "type", "count", "fill", "from_caller"});
    ConstantSymbol c;
    c.symbol = string(required(j, "symbol", path), path + ".symbol");
    c.type = type(required(j, "type", path), path + ".type");
    if (j.contains("count")) c.count = expr(j.at("count"), path + ".count");
    if (j.contains("fill")) c.fill = fill(j.at("fill"), path + ".fill");
    if (j.contains("from_caller")) c.from_caller = boolean(j.at("from_caller"), path + ".from_caller");
    return c;
  }

  void read_verify(const ordered_json& j, VerifySpec& v) const {
    fields(j, "verify",
           {"reference_config", "reference_kernel", "library", "function", "tolerance", "reduce", "callback", "depends_on"});
    if (j.contains("callback"))
      fail("verify.callback", "a C++ callback cannot come from a file: use reference_config, reference_kernel or a "
                              "host check from a shared library ({\"library\": \"check.so\", \"function\": \"name\"}; "
                              "or build the description with KernelBuilder::verify_with)");
    const int modes = (j.contains("reference_config") ? 1 : 0) + (j.contains("reference_kernel") ? 1 : 0) +
                      (j.contains("library") || j.contains("function") ? 1 : 0);
    if (modes != 1) fail("verify", "exactly one of reference_config, reference_kernel and library (with function)");
    if (j.contains("depends_on") && !j.contains("reference_kernel"))
      fail("verify.depends_on", "only a reference kernel depends on parameters (it runs once per value)");
    if (j.contains("tolerance")) {
      const auto& t = fields(j.at("tolerance"), "verify.tolerance", {"abs", "rel", "terms"});
      if (t.contains("terms")) v.tolerance_terms = expr(t.at("terms"), "verify.tolerance.terms");
      ordered_json numbers = t;
      numbers.erase("terms");
      if (!numbers.empty()) {
        v.tolerance = description_detail::read_tolerance(*this, numbers, "verify.tolerance");
        v.tolerance_given = true;
      }
    }
    if (j.contains("reduce")) {
      const auto& list = array(j.at("reduce"), "verify.reduce");
      for (std::size_t i = 0; i < list.size(); ++i)
        v.reduced.push_back(description_detail::read_reduced(*this, list[i], "verify.reduce[" + std::to_string(i) + "]"));
    }
    if (j.contains("library") || j.contains("function")) {
      v.mode = VerifySpec::Mode::host_check;
      const std::string library = string(required(j, "library", "verify"), "verify.library");
      HostCheck check{(base_ / library).lexically_normal(), string(required(j, "function", "verify"), "verify.function")};
      if (!std::filesystem::is_regular_file(check.library))
        fail("verify.library", "cannot find " + check.library.string() + " (paths are relative to the description's folder)");
      v.host_check = std::move(check);
      return;
    }
    if (j.contains("reference_config")) {
      v.mode = VerifySpec::Mode::reference_config;
      v.reference_config = nlohmann::json::parse(object(j.at("reference_config"), "verify.reference_config").dump());
      return;
    }
    v.mode = VerifySpec::Mode::reference_kernel;
    if (j.contains("depends_on")) v.depends_on = strings(j.at("depends_on"), "verify.depends_on");
    const std::string path = "verify.reference_kernel";
    const auto& k = fields(j.at("reference_kernel"), path, {"kernel", "files", "block", "grid", "shared_memory"});
    ReferenceKernel r;
    r.kernel = pattern(required(k, "kernel", path), path + ".kernel");
    if (k.contains("files")) r.files = files(k.at("files"), path + ".files");
    r.block = dims(required(k, "block", path), path + ".block");
    r.grid = dims(required(k, "grid", path), path + ".grid");
    if (k.contains("shared_memory")) r.shared_memory = expr(k.at("shared_memory"), path + ".shared_memory");
    v.reference_kernel = std::move(r);
  }

  std::filesystem::path base_;
  std::optional<std::map<std::string, std::vector<SourceFile>>> embedded_;
};

std::vector<SourceFile> embedded_files(const ordered_json& data, const char* key, const std::string& origin) {
  std::vector<SourceFile> out;
  if (!data.contains(key)) return out;
  const auto& list = data.at(key);
  if (!list.is_array()) throw DescriptionError(origin, key, "expected a list of files");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& f = list[i];
    const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
    for (const char* member : {"name", "text", "path"})
      if (!f.is_object() || !f.contains(member) || !f.at(member).is_string())
        throw DescriptionError(origin, field, std::string("expected {name, text, path} strings; '") + member + "' is not one");
    out.push_back({f.at("name").get<std::string>(), f.at("text").get<std::string>(), f.at("path").get<std::string>()});
  }
  return out;
}

} // namespace

KernelDescription description_from_json(const nlohmann::ordered_json& document, const std::string& origin,
                                        const std::filesystem::path& base_folder) {
  return Reader(origin, base_folder).read(document);
}

KernelDescription description_from_data(const nlohmann::ordered_json& data, const std::string& origin) {
  if (!data.is_object() || !data.contains("description"))
    throw DescriptionError(origin, "description", "missing: not a description as data (KernelDescription::to_data)");
  std::map<std::string, std::vector<SourceFile>> embedded{
      {"source.files", embedded_files(data, "source_files", origin)},
      {"verify.reference_kernel.files", embedded_files(data, "reference_files", origin)}};
  return Reader(origin, std::move(embedded)).read(data.at("description"));
}

KernelDescription description_from_text(const std::string& text, const std::string& origin,
                                        const std::filesystem::path& base_folder) {
  const nlohmann::ordered_json document = description_detail::parse_description_text(text, origin);
  return description_from_json(document, origin, base_folder);
}

KernelDescription load_description(const std::filesystem::path& file) {
  std::string text;
  try {
    text = io::read_text_file(file);
  } catch (const InputError& e) {
    throw DescriptionError(file.string(), "", e.message());
  }
  return description_from_text(text, file.string(), file.parent_path());
}

} // namespace memtune
