// The example kernels written as a user would (examples/kernels/*, and the
// dot_app's own kernel): their descriptions load, their spaces, defaults and
// references hold on GPUs large and small, and what an application passes to
// them. Their device code runs on the CPU in *_emulation_test.cpp; `memtune
// tune --spec` runs them modeled in ctest (spec_<kernel>), measured in
// scripts/launcher_gpu_check.sh.
#include <memtune/description/description_json.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace memtune;

namespace {

struct Example {
  const char* file;            // under examples/
  const char* name;
  std::size_t h100_configs;    // valid configurations at the default problem on the H100
  const char* caller;          // what an application passes (nullptr: not checked)
};

const Example kExamples[] = {
    {"kernels/transpose/transpose.json", "user_transpose", 60, "(float* out, const float* in)"},
    {"kernels/histogram/histogram.json", "user_histogram", 156, "(const uint8_t* data, unsigned* bins)"},
    {"kernels/stencil/stencil.json", "user_stencil", 104, "(float* out, const float* in, float c0, float c1)"},
    {"dot_app/dot.json", "dot_app_dot", 57, "(const float* x, const float* y, float* result)"},
    // Real kernels as users have them (the reduction and the transpose compile with nvcc).
    {"kernels/reduction/reduction.json", "user_reduction", 30, "(const float* g_idata, float* g_odata)"},
    {"kernels/haxpy/haxpy.json", "user_haxpy", 20, nullptr},
    {"kernels/padded_stencil/padded_stencil.json", "user_padded_stencil", 16, "(float* output, const float* input)"},
    {"kernels/transpose_host/transpose.json", "user_transpose_host", 13, "(float* odata, const float* idata)"},
};

} // namespace

TEST_CASE("the example user kernels: spaces, defaults and references on large and small GPUs, caller arguments") {
  for (const Example& e : kExamples) {
    CAPTURE(e.file);
    const KernelDescription d = load_description(std::string(MEMTUNE_TEST_EXAMPLES_DIR "/") + e.file);
    CHECK(d.name == e.name);
    if (e.caller) CHECK(format_caller_parameters(caller_parameters(d)) == e.caller);
    const Problem problem = d.complete({});
    CHECK(d.space(problem, catalogue_target("h100-sxm")).enumerate().size() == e.h100_configs);
    for (const char* gpu : {"h100-sxm", "a100", "t4", "l4", "v100"}) {
      CAPTURE(gpu);
      const Target& target = catalogue_target(gpu);
      const search::Space space = d.space(problem, target);
      const search::Config fallback = d.default_config(problem, target);
      CHECK(space.is_valid(fallback));
      if (d.verify.mode == VerifySpec::Mode::reference_config) CHECK_NOTHROW((void)d.reference_configuration(problem, target));
      CHECK_NOTHROW((void)d.launch(fallback, problem, target));
    }
  }
}

TEST_CASE("the histogram's bins are re-filled with zeros before every launch while tuning, and verified exactly") {
  const KernelDescription d = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/histogram/histogram.json");
  const auto& bins = std::get<BufferArgument>(d.arguments[1]);
  CHECK(bins.role == BufferRole::inout);
  CHECK(bins.fill.kind == Fill::Kind::constant);
  CHECK(bins.fill.value == 0.0);
  CHECK(d.verify.tolerance.abs == 0.0);
  CHECK(d.verify.tolerance.rel == 0.0);
  // Counts read the bytes once and the bins twice.
  CHECK(d.bytes_moved({{"n", 1000}}) == 1000 + 2 * 256 * 4);
}

TEST_CASE("the dot kernel's scratch (partial sums per block, the finish counter) is the launcher's, sized per configuration") {
  const KernelDescription d = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/dot_app/dot.json");
  const Target& h100 = catalogue_target("h100-sxm");
  const Problem problem = d.complete({{"n", 1 << 20}});
  const search::Space space = d.space(problem, h100);
  const search::Config c = space.config_from_json({{"BLOCK", 256}, {"VEC", 4}, {"WAVES", 2}});
  CHECK(d.launch(c, problem, h100).grid.x == 264); // min(2^20 / 4 / 256, 132 x 2)
  CHECK(d.environment(c, problem, h100).at("blocks") == 264);
  CHECK(std::get<BufferArgument>(d.arguments[4]).role == BufferRole::scratch);
  CHECK(std::get<BufferArgument>(d.arguments[5]).role == BufferRole::scratch);
}

TEST_CASE("the real-kernel examples say what they need: half2 buffers, a padded offset, #define tunables, a reduced comparison") {
  const KernelDescription haxpy = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/haxpy/haxpy.json");
  CHECK(std::get<BufferArgument>(haxpy.arguments[2]).type == vector_type(ElementType::f16, 2));
  CHECK(std::get<ScalarArgument>(haxpy.arguments[1]).type == ElementType::f16);
  CHECK(haxpy.bytes_moved(haxpy.complete({{"n", 1000}})) == 3 * 1000 * 2); // x read, y read and written

  const KernelDescription stencil = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/padded_stencil/padded_stencil.json");
  const auto& output = std::get<BufferArgument>(stencil.arguments[0]);
  CHECK(output.role == BufferRole::out); // written in its interior: no inout re-copy
  CHECK(output.partial);
  CHECK(output.offset.to_string() == "28");

  const KernelDescription transpose = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/transpose_host/transpose.json");
  REQUIRE(transpose.source.defines.size() == 2);
  CHECK(transpose.source.defines[0].first == "TILE_DIM");
  CHECK(transpose.source.files[0].text.find("int main()") != std::string::npos);
  CHECK(transpose.source.files[0].text.find("#define TILE_DIM 32") != std::string::npos);

  const KernelDescription reduction = load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/reduction/reduction.json");
  REQUIRE(reduction.verify.reduced.size() == 1);
  CHECK(reduction.verify.reduced[0].count.to_string() == "blocks");
  CHECK(reduction.source.files[0].text.find("#include <cooperative_groups.h>") != std::string::npos);
  for (const char* type : {"float", "int"}) {
    CAPTURE(type);
    const Problem p = reduction.complete({{"T", std::string(type) == "int" ? 1 : 0}});
    const LaunchSpec l = reduction.launch(reduction.default_config(p, catalogue_target("h100-sxm")), p, catalogue_target("h100-sxm"));
    CHECK(l.name_expression == std::string("reduce_partial<") + type + ", 256>");
    CHECK(l.grid.x == 4 * 132);
  }
}
