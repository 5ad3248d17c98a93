#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>

#include "description_fields.hpp"
#include <memtune/description/description_internal.hpp>

namespace memtune {

namespace {

// Expression text from C++ is parsed at once; a syntax error names the field.
search::Expr parse(const KernelDescription& d, std::string_view text, const std::string& field) {
  try {
    return search::parse_expr(text);
  } catch (const search::ExprSyntaxError& e) {
    throw DescriptionError(description_detail::origin_of(d), field, description_detail::explain_syntax_error(e, text));
  }
}

} // namespace

KernelBuilder::KernelBuilder(std::string name) { d_.name = std::move(name); }

KernelBuilder& KernelBuilder::summary(std::string text) {
  d_.summary = std::move(text);
  return *this;
}

KernelBuilder& KernelBuilder::source(std::string file_name, std::string text) {
  d_.source.files.push_back({std::move(file_name), std::move(text)});
  return *this;
}

KernelBuilder& KernelBuilder::include_path(std::string folder) {
  d_.source.include_paths.push_back(std::move(folder));
  return *this;
}

KernelBuilder& KernelBuilder::nvrtc_option(std::string option) {
  d_.source.options.push_back(std::move(option));
  return *this;
}

KernelBuilder& KernelBuilder::kernel(std::string name_pattern) {
  d_.source.kernel = std::move(name_pattern);
  return *this;
}

KernelBuilder& KernelBuilder::kernel_if(std::string_view condition, std::string name_pattern) {
  const std::string field = "source.kernel[" + std::to_string(d_.source.kernel_if.size()) + "].if";
  d_.source.kernel_if.push_back({parse(d_, condition, field), std::move(name_pattern)});
  return *this;
}

KernelBuilder& KernelBuilder::define(std::string macro, std::string value_pattern) {
  d_.source.defines.emplace_back(std::move(macro), std::move(value_pattern));
  return *this;
}

KernelBuilder& KernelBuilder::problem(ProblemParameter variable) {
  d_.problem.push_back(std::move(variable));
  return *this;
}

KernelBuilder& KernelBuilder::size(std::string name, std::int64_t default_value, std::string description,
                                   std::int64_t min, std::int64_t max) {
  return problem({std::move(name), default_value, min, max, std::move(description), /*is_size=*/true, {}});
}

KernelBuilder& KernelBuilder::parameter(search::Axis axis) {
  d_.parameters.push_back({std::move(axis), std::nullopt, {}});
  return *this;
}

KernelBuilder& KernelBuilder::parameter_if(search::Axis axis, std::string_view only_if, std::string pruned_reason) {
  const std::string field = "parameters." + axis.name + ".only_if";
  search::Expr condition = parse(d_, only_if, field);
  d_.parameters.push_back({std::move(axis), std::move(condition), std::move(pruned_reason)});
  return *this;
}

KernelBuilder& KernelBuilder::parameter_values_if(search::Axis axis, std::string_view values_if) {
  const std::string field = "parameters." + axis.name + ".values_if";
  search::Expr condition = parse(d_, values_if, field);
  d_.parameters.push_back({std::move(axis), std::nullopt, {}, std::move(condition)});
  return *this;
}

KernelBuilder& KernelBuilder::derived(std::string name, std::string_view expression) {
  search::Expr value = parse(d_, expression, "derived." + name);
  d_.derived.push_back({std::move(name), std::move(value)});
  return *this;
}

KernelBuilder& KernelBuilder::constraint(std::string_view condition, std::string reason) {
  return constraint(condition, std::move(reason), {});
}

KernelBuilder& KernelBuilder::constraint(std::string_view condition, std::string reason,
                                         std::vector<std::pair<std::string, std::string>> same_as) {
  d_.constraints.push_back({parse(d_, condition, "constraints[" + std::to_string(d_.constraints.size()) + "]"),
                            std::move(reason), std::move(same_as)});
  return *this;
}

KernelBuilder& KernelBuilder::block(std::string_view x, std::string_view y, std::string_view z) {
  d_.launch_exprs.block_x = parse(d_, x, "launch.block[0]");
  d_.launch_exprs.block_y = parse(d_, y, "launch.block[1]");
  d_.launch_exprs.block_z = parse(d_, z, "launch.block[2]");
  return *this;
}

KernelBuilder& KernelBuilder::grid(std::string_view x, std::string_view y, std::string_view z) {
  d_.launch_exprs.grid_x = parse(d_, x, "launch.grid[0]");
  d_.launch_exprs.grid_y = parse(d_, y, "launch.grid[1]");
  d_.launch_exprs.grid_z = parse(d_, z, "launch.grid[2]");
  return *this;
}

KernelBuilder& KernelBuilder::shared_memory(std::string_view bytes) {
  d_.launch_exprs.shared_memory = parse(d_, bytes, "launch.shared_memory");
  return *this;
}

KernelBuilder& KernelBuilder::cooperative(bool on) {
  d_.launch_exprs.cooperative = on;
  return *this;
}

KernelBuilder& KernelBuilder::buffer(std::string name, ElementType type, std::string_view count, BufferRole role,
                                     Fill fill) {
  search::Expr n = parse(d_, count, "arguments[" + std::to_string(d_.arguments.size()) + "].count");
  d_.arguments.emplace_back(BufferArgument{std::move(name), type, std::move(n), role, std::move(fill)});
  return *this;
}

KernelBuilder& KernelBuilder::scalar(std::string name, ElementType type, std::string_view value, bool from_caller) {
  search::Expr v = parse(d_, value, "arguments[" + std::to_string(d_.arguments.size()) + "].value");
  d_.arguments.emplace_back(ScalarArgument{std::move(name), type, std::move(v), std::nullopt, from_caller});
  return *this;
}

KernelBuilder& KernelBuilder::scalar(std::string name, ElementType type, double value, bool from_caller) {
  d_.arguments.emplace_back(ScalarArgument{std::move(name), type, 0, value, from_caller});
  return *this;
}

KernelBuilder& KernelBuilder::constant(std::string symbol, ElementType type, std::string_view count, Fill fill,
                                       bool from_caller) {
  search::Expr n = parse(d_, count, "constants[" + std::to_string(d_.constants.size()) + "].count");
  d_.constants.push_back({std::move(symbol), type, std::move(n), std::move(fill), from_caller});
  return *this;
}

KernelBuilder& KernelBuilder::written_in_part(const std::string& name) {
  for (Argument& a : d_.arguments)
    if (auto* b = std::get_if<BufferArgument>(&a); b && b->name == name) {
      b->partial = true;
      return *this;
    }
  throw DescriptionError(description_detail::origin_of(d_), "arguments",
                         "written_in_part(\"" + name + "\"): no buffer argument of that name is declared before it");
}

KernelBuilder& KernelBuilder::bytes_moved(std::string_view expression) {
  d_.bytes_moved_expr = parse(d_, expression, "bytes_moved");
  return *this;
}

KernelBuilder& KernelBuilder::verify_with_config(nlohmann::json reference_config, Tolerance tolerance) {
  d_.verify.mode = VerifySpec::Mode::reference_config;
  d_.verify.reference_config = std::move(reference_config);
  d_.verify.tolerance = tolerance;
  d_.verify.tolerance_given = true; // given explicitly, as a file's "tolerance"
  return *this;
}

KernelBuilder& KernelBuilder::verify_with_kernel(ReferenceKernel kernel, Tolerance tolerance, std::string_view terms,
                                                 std::vector<std::string> depends_on) {
  d_.verify.mode = VerifySpec::Mode::reference_kernel;
  d_.verify.reference_kernel = std::move(kernel);
  d_.verify.tolerance = tolerance;
  d_.verify.tolerance_given = true; // given explicitly, as a file's "tolerance"
  d_.verify.tolerance_terms = parse(d_, terms, "verify.tolerance.terms");
  d_.verify.depends_on = std::move(depends_on);
  return *this;
}

KernelBuilder& KernelBuilder::verify_with(ReferenceFunction reference, std::vector<std::string> depends_on) {
  d_.verify.mode = VerifySpec::Mode::callback;
  d_.verify.callback = std::move(reference);
  d_.verify.depends_on = std::move(depends_on);
  return *this;
}

KernelBuilder& KernelBuilder::default_config(nlohmann::json config) {
  d_.default_config_json = std::move(config);
  return *this;
}

KernelBuilder& KernelBuilder::model(const nlohmann::ordered_json& section) {
  const description_detail::FieldReader reader(description_detail::origin_of(d_));
  d_.model = description_detail::read_model_section(reader, section);
  return *this;
}

KernelBuilder& KernelBuilder::hooks(DescriptionHooks hooks) {
  d_.hooks = std::move(hooks);
  return *this;
}

KernelBuilder& KernelBuilder::access_pattern(
    std::function<AccessPattern(const search::Config&, const Problem&, const Target&)> f) {
  d_.hooks.access_pattern = std::move(f);
  return *this;
}

KernelBuilder& KernelBuilder::explain(std::function<std::string(const TuningResult&)> f) {
  d_.hooks.explain = std::move(f);
  return *this;
}

KernelBuilder& KernelBuilder::baseline(std::string name, BaselineFactory factory) {
  d_.hooks.baselines[std::move(name)] = std::move(factory);
  return *this;
}

KernelBuilder& KernelBuilder::library_baseline(std::string name, std::string call,
                                               std::map<std::string, std::string> buffers,
                                               const std::map<std::string, std::string>& values) {
  LibraryBaseline b{std::move(call), std::move(buffers), {}};
  for (const auto& [operand, text] : values)
    b.values.insert_or_assign(operand, parse(d_, text, "baselines." + name + ".values." + operand));
  d_.baselines[std::move(name)] = std::move(b);
  return *this;
}

KernelBuilder& KernelBuilder::default_config(std::function<search::Config(const Problem&, const Target&)> f) {
  d_.hooks.default_config = std::move(f);
  return *this;
}

KernelDescription KernelBuilder::build() const {
  d_.validate();
  return d_;
}

} // namespace memtune
