#include <memtune/compile/compile_pool.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/templates/filter.hpp>

#include "../support/test_target.hpp"

#include <doctest/doctest.h>

#include <future>

using namespace memtune;

namespace {
Target target_for(int cc) { return test_target(cc, cc >= 90 ? 227 * 1024 : 64 * 1024); }
} // namespace

TEST_CASE("every filter candidate compiles for sm_90 and sm_75, with resources reported") {
  const auto& filter = templates::filter_description();
  const Problem problem{{"n", 1000003}, {"taps", 21}};
  for (int cc : {90, 75}) {
    CAPTURE(cc);
    const search::Space space = filter.space(problem, target_for(cc));
    const auto configs = space.enumerate();
    REQUIRE(configs.size() >= 100);
    CompilePool pool(nullptr);
    std::vector<std::future<CompileResult>> results;
    for (const auto& c : configs) results.push_back(pool.submit(filter.compile_request(filter.launch(c, problem, target_for(cc)), cc)));
    for (std::size_t i = 0; i < configs.size(); ++i) {
      CAPTURE(space.format(configs[i]));
      const CompileResult r = results[i].get();
      CHECK_MESSAGE(r.ok, r.log);
      CHECK(!r.cubin.empty());
      CHECK(r.lowered_name.find(configs[i].at("staging") == 0 ? "filter_kernel" : "filter_direct") != std::string::npos);
      CHECK(r.resources.registers > 0);
      CHECK(r.resources.registers <= 255);
    }
  }
}

TEST_CASE("a compile error is a result holding the log, not an exception") {
  CompileRequest r;
  r.source = "template <int N> __global__ void k(float* p) { p[0] = undeclared_name * N; }";
  r.source_name = "broken.cu";
  r.name_expression = "k<4>";
  r.compute_capability = 90;
  const CompileResult result = nvrtc_compile(r);
  CHECK_FALSE(result.ok);
  CHECK(result.log.find("undeclared_name") != std::string::npos);
  CHECK(result.log.find("broken.cu") != std::string::npos);
}

TEST_CASE("an architecture NVRTC cannot target is a clear error") {
  CompileRequest r;
  r.source = "__global__ void k() {}";
  r.source_name = "k.cu";
  r.name_expression = "k";
  r.compute_capability = 35;
  CHECK_THROWS_WITH_AS(nvrtc_compile(r), doctest::Contains("cannot compile for sm_35"), std::invalid_argument);
}

TEST_CASE("nearest supported architecture") {
  const auto archs = nvrtc_supported_archs();
  REQUIRE(!archs.empty());
  CHECK(nearest_supported_arch(archs.front()) == archs.front());
  CHECK(nearest_supported_arch(35) == archs.front()); // sm_35 is gone from NVRTC 12+: the oldest left
  CHECK(nearest_supported_arch(10000) == archs.back());
}
