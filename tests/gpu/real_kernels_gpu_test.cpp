// The example kernels of examples/kernels that take memtune's newer
// verification: measured and verified on the GPU through their description
// files alone. The reduction (cooperative groups, partial sums per block)
// and the whole-program transpose (host code, #define tunables) need the
// nvcc back end and the #define substitution; where this build cannot
// compile them their candidates fail to compile, and the test says so
// instead of passing.
#include <memtune/description/description_json.hpp>
#include <memtune/tune/tuner.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace {

const std::filesystem::path kExamples = MEMTUNE_TEST_EXAMPLES_DIR "/kernels";

memtune::TuningResult tune_example(const char* file, const memtune::Problem& problem) {
  const memtune::KernelDescription d = memtune::load_description(kExamples / file);
  return memtune::tune(d, problem, quick_options());
}

} // namespace

TEST_CASE("half2 axpy: half buffers and a half scalar, verified within half's tolerance, at odd sizes") {
  for (const std::int64_t n : {2, 1000002, 1 << 24}) {
    CAPTURE(n);
    check_every_candidate_ok(tune_example("haxpy/haxpy.json", {{"n", n}}));
  }
}

TEST_CASE("the padded stencil: buffer + 28, the output written in its interior only, no inout re-copy") {
  for (const memtune::Problem& p : {memtune::Problem{{"dimx", 37}, {"dimy", 19}, {"dimz", 6}},
                                    memtune::Problem{{"dimx", 256}, {"dimy", 256}, {"dimz", 64}}}) {
    CAPTURE(memtune::format_problem(p));
    const memtune::TuningResult r = tune_example("padded_stencil/padded_stencil.json", p);
    check_every_candidate_ok(r);
  }
}

TEST_CASE("the partial-sums reduction: every block size and block count verified by the sum of its partials, int and float") {
  for (const std::int64_t type : {0, 1}) {
    CAPTURE(type);
    const memtune::TuningResult r = tune_example("reduction/reduction.json", {{"n", 1000003}, {"T", type}});
    check_every_candidate_ok(r);
  }
}

TEST_CASE("a wrong partial sum is caught by the reduced comparison") {
  // The reduction off by one in every configuration but the reference's: the
  // description's own file, its kernel adding 1 to the first thread's sum (a
  // skipped element could be a 0 of the random input and go unseen).
  const auto dir = std::filesystem::temp_directory_path() / "memtune-wrong-reduction";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kExamples / "reduction/reduction.json", dir / "reduction.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::ifstream in(kExamples / "reduction/reduction.cu");
  std::string source((std::istreambuf_iterator<char>(in)), {});
  const std::string loop = "i < n; i += stride) sum += g_idata[i];";
  REQUIRE(source.find(loop) != std::string::npos);
  source.insert(source.find(loop) + loop.size(), "\n  if (blockSize != 256 && blockIdx.x == 0 && threadIdx.x == 0) sum += T(1);");
  std::ofstream(dir / "reduction.cu") << source;
  const memtune::KernelDescription d = memtune::load_description(dir / "reduction.json");
  // T = 1 is "int": its sum is compared exactly.
  const memtune::TuningResult r = memtune::tune(d, {{"n", 1000003}, {"T", 1}}, quick_options());
  std::size_t wrong = 0;
  for (const auto& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    if (e.config.at("BLOCK") == 256) continue;
    CHECK(e.status == memtune::Status::wrong_result);
    wrong += e.status == memtune::Status::wrong_result ? 1 : 0;
  }
  CHECK(wrong > 0);
}

TEST_CASE("the whole-program transpose: #define tunables substituted, host code compiled away") {
  check_every_candidate_ok(tune_example("transpose_host/transpose.json", {{"width", 4096}, {"height", 1024}}));
}
