// Planning the reference before a run (measure/src/reference_run.cpp), on the
// CPU: a reference kernel is compiled once per combination of its depends_on
// axes' values, each with that combination's configuration; one that cannot
// be planned says why before any candidate runs.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/measure/reference_run.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

using namespace memtune;

namespace {

constexpr const char* kSource = R"(
template <int LAYOUT, int BLOCK> __global__ void k(const float* in, float* out, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = LAYOUT ? in[i] : 2.0f * in[i];
}
template <int LAYOUT> __global__ void ref(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = LAYOUT ? in[i] : 2.0f * in[i];
}
)";

KernelBuilder layouts(std::vector<std::int64_t> layout_values, std::string_view reference_grid = "ceil_div(n, 256)") {
  KernelBuilder b("layouts");
  ReferenceKernel reference{"ref<{LAYOUT}>", {}, {search::parse_expr("256")}, {search::parse_expr(reference_grid)}, 0};
  b.source("k.cu", kSource)
      .kernel("k<{LAYOUT}, {BLOCK}>")
      .size("n", 1000, "elements")
      .parameter(search::Axis::ordinal("LAYOUT", std::move(layout_values)))
      .parameter(search::Axis::ordinal("BLOCK", {128, 256}))
      .block("BLOCK")
      .grid("ceil_div(n, BLOCK)")
      .buffer("in", ElementType::f32, "n", BufferRole::in)
      .buffer("out", ElementType::f32, "n", BufferRole::out)
      .scalar("n", ElementType::i32, "n")
      .verify_with_kernel(reference, {0.0, 0.0}, "1", {"LAYOUT"});
  return b;
}

} // namespace

TEST_CASE("reference kernel with depends_on: planned and compiled once per value, on that value's configuration") {
  const KernelDescription d = layouts({0, 1}).build();
  const Target& target = catalogue_target("h100-sxm");
  const Problem p = d.complete({});
  const PlannedReference planned = plan_reference(d, p, target, nullptr);
  REQUIRE_FALSE(planned.error);
  REQUIRE(planned.plans.size() == 2);
  for (std::int64_t layout : {0, 1}) {
    const ReferencePlan& plan = planned.plans[static_cast<std::size_t>(layout)];
    CAPTURE(layout);
    CHECK(plan.what == "the reference kernel");
    CHECK(plan.config.at("LAYOUT") == layout);
    CHECK(plan.config.has("BLOCK")); // the default configuration's other values: the arguments need them
    CHECK(plan.launch.name_expression == "ref<" + std::to_string(layout) + ">");
    CHECK(plan.launch.grid.x == 4);
    CHECK(plan.compiled.ok);
  }
}

TEST_CASE("reference kernel with depends_on: too many values, or a launch that reads another axis, is refused with why") {
  std::vector<std::int64_t> many(65);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<std::int64_t>(i);
  const PlannedReference too_many = plan_reference(layouts(many).build(), {{"n", 1000}}, catalogue_target("h100-sxm"), nullptr);
  REQUIRE(too_many.error);
  CHECK(too_many.error->find("65 combinations of verify.depends_on's values; at most 64 are run") != std::string::npos);

  // A tolerance of no terms for this problem.
  KernelBuilder no_terms = layouts({0, 1});
  no_terms.verify_with_kernel({"ref<{LAYOUT}>", {}, {search::parse_expr("256")}, {search::parse_expr("4")}, 0}, {0.0, 0.0},
                              "n - 1000", {"LAYOUT"});
  const PlannedReference zero = plan_reference(no_terms.build(), {{"n", 1000}}, catalogue_target("h100-sxm"), nullptr);
  REQUIRE(zero.error);
  CHECK(zero.error->find("verify.tolerance.terms = (n - 1000) is 0 for this problem") != std::string::npos);

  // The grid reads BLOCK, which is not a depends_on axis: no value for it.
  const PlannedReference reads_block =
      plan_reference(layouts({0, 1}, "ceil_div(n, BLOCK)").build(), {{"n", 1000}}, catalogue_target("h100-sxm"), nullptr);
  REQUIRE(reads_block.error);
  CHECK(reads_block.error->find("the reference kernel cannot run: verify.reference_kernel.grid[0]") != std::string::npos);
}
