#pragma once
// Builds a KernelDescription in C++ (the built-in templates, and applications
// that describe their kernel in code rather than in a JSON file). Expression
// arguments are text, parsed at once (search::parse_expr); build() validates
// the whole description. Every error is a DescriptionError naming the field.
//
//   KernelDescription saxpy = KernelBuilder("saxpy")
//       .summary("y = a x + y")
//       .source("saxpy.cu", saxpy_source)
//       .kernel("saxpy<{BLOCK}, {ITEMS}>")
//       .size("n", 1 << 24, "elements")
//       .parameter(search::Axis::ordinal("BLOCK", {128, 256, 512}))
//       .parameter(search::Axis::ordinal("ITEMS", {1, 2, 4}))
//       .constraint("BLOCK <= max_threads_per_block", "threads per block above the device limit")
//       .block("BLOCK").grid("ceil_div(n, BLOCK * ITEMS)")
//       .buffer("x", ElementType::f32, "n", BufferRole::in)
//       .buffer("y", ElementType::f32, "n", BufferRole::inout)
//       .scalar("a", ElementType::f32, 2.0, /*from_caller=*/true)
//       .scalar("n", ElementType::i32, "n")
//       .verify_with_config({{"BLOCK", 128}, {"ITEMS", 1}}, {0.0, 1e-6})
//       .build();
#include <memtune/description/kernel_description.hpp>

#include <string>
#include <string_view>

namespace memtune {

class KernelBuilder {
public:
  explicit KernelBuilder(std::string name);

  KernelBuilder& summary(std::string text);
  // A source file by name and text; the first is compiled, later ones are headers it may include.
  KernelBuilder& source(std::string file_name, std::string text);
  KernelBuilder& include_path(std::string folder);
  KernelBuilder& nvrtc_option(std::string option);
  KernelBuilder& kernel(std::string name_pattern);          // "filter_kernel<{block_size}, {packing}>"
  // A kernel name used where `condition` holds, tried in order before kernel() (matvec's two kernels).
  KernelBuilder& kernel_if(std::string_view condition, std::string name_pattern);
  KernelBuilder& define(std::string macro, std::string value_pattern); // -Dmacro=value

  KernelBuilder& problem(ProblemParameter variable);
  // A problem size with a default (profiles fall back to the nearest size), in [min, max].
  KernelBuilder& size(std::string name, std::int64_t default_value, std::string description,
                      std::int64_t min = 1, std::int64_t max = INT64_MAX);

  KernelBuilder& parameter(search::Axis axis);
  // A parameter present only where `only_if` (text) holds; `pruned_reason` is a pattern.
  KernelBuilder& parameter_if(search::Axis axis, std::string_view only_if, std::string pruned_reason);
  // An integer parameter whose values are kept per problem and device where `values_if` holds
  // (reading the parameter's own name as the value).
  KernelBuilder& parameter_values_if(search::Axis axis, std::string_view values_if);
  KernelBuilder& derived(std::string name, std::string_view expression);
  KernelBuilder& constraint(std::string_view condition, std::string reason);
  // A constraint whose breakers are duplicates: each is the same kernel as
  // itself with `same_as` set (ConstraintSpec::same_as), e.g. {{"zfill", "0"}}.
  KernelBuilder& constraint(std::string_view condition, std::string reason,
                            std::vector<std::pair<std::string, std::string>> same_as);

  KernelBuilder& block(std::string_view x, std::string_view y = "1", std::string_view z = "1");
  KernelBuilder& grid(std::string_view x, std::string_view y = "1", std::string_view z = "1");
  KernelBuilder& shared_memory(std::string_view bytes);
  // Launch with cuLaunchCooperativeKernel (a kernel that calls grid.sync()).
  KernelBuilder& cooperative(bool on = true);

  KernelBuilder& buffer(std::string name, ElementType type, std::string_view count, BufferRole role, Fill fill = {});
  // The out buffer `name` (declared before) is written only in part
  // (BufferArgument::partial, JSON "partial": true).
  KernelBuilder& written_in_part(const std::string& name);
  KernelBuilder& scalar(std::string name, ElementType type, std::string_view value, bool from_caller = false);
  KernelBuilder& scalar(std::string name, ElementType type, double value, bool from_caller = false);
  KernelBuilder& constant(std::string symbol, ElementType type, std::string_view count, Fill fill = {},
                          bool from_caller = true);
  KernelBuilder& bytes_moved(std::string_view expression);

  KernelBuilder& verify_with_config(nlohmann::json reference_config, Tolerance tolerance);
  // `terms`: how many terms one output sums (VerifySpec::tolerance_terms);
  // `depends_on`: axes the reference kernel reads (VerifySpec::depends_on).
  KernelBuilder& verify_with_kernel(ReferenceKernel kernel, Tolerance tolerance, std::string_view terms = "1",
                                    std::vector<std::string> depends_on = {});
  // `depends_on`: axes whose value changes the expected outputs.
  KernelBuilder& verify_with(ReferenceFunction reference, std::vector<std::string> depends_on = {});

  KernelBuilder& default_config(nlohmann::json config);
  KernelBuilder& hooks(DescriptionHooks hooks);
  KernelBuilder& access_pattern(std::function<AccessPattern(const search::Config&, const Problem&, const Target&)> f);
  // The kernel's accesses for the analytical model as data: a description
  // file's "model" section, read by the same reader (the same fields, the
  // same errors; docs/kernel-description.md, `model`). An access_pattern
  // hook, where given, takes precedence. Ordered JSON: a local may read the
  // locals before it, so their order is the section's.
  //   .model(nlohmann::ordered_json::parse(R"({"locals": {"i": "blockIdx.x * BLOCK + threadIdx.x"},
  //     "global": [{"name": "load x", "buffer": "x", "access": "load", "index": "i", "if": "i < n"}]})"))
  KernelBuilder& model(const nlohmann::ordered_json& section);
  KernelBuilder& explain(std::function<std::string(const TuningResult&)> f);
  KernelBuilder& baseline(std::string name, BaselineFactory factory);
  // A baseline memtune provides (LibraryBaseline), operands bound by name:
  //   .library_baseline("cublas", "cublas_sgemv", {{"A", "A"}, {"x", "x"}, {"y", "y"}},
  //                     {{"rows", "rows"}, {"cols", "cols"}, {"row_major", "layout == \"row\""}})
  KernelBuilder& library_baseline(std::string name, std::string call, std::map<std::string, std::string> buffers,
                                  const std::map<std::string, std::string>& values);
  KernelBuilder& default_config(std::function<search::Config(const Problem&, const Target&)> f);

  // Validates (KernelDescription::validate) and returns the description.
  [[nodiscard]] KernelDescription build() const;

private:
  KernelDescription d_;
};

} // namespace memtune
