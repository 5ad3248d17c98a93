#include <memtune/compile/cubin_elf.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;

namespace {
CompileResult compile(const std::string& source, const std::string& name) {
  CompileRequest r;
  r.source = source;
  r.source_name = "bounds.cu";
  r.name_expression = name;
  r.compute_capability = 90;
  return nvrtc_compile(r);
}
} // namespace

TEST_CASE("a kernel's __launch_bounds__ is read from its CUBIN, as the driver would report it") {
  const CompileResult bounded =
      compile("__global__ void __launch_bounds__(128) k(float* p) { p[threadIdx.x] = 1.0f; }", "k");
  REQUIRE_MESSAGE(bounded.ok, bounded.log);
  CHECK(cubin_max_threads_per_block(bounded.cubin, bounded.lowered_name) == 128);
  CHECK(bounded.resources.max_threads_per_block == 128); // every compile reports it
  CHECK(bounded.resources.registers > 0);

  const CompileResult with_min_blocks = compile(
      "template <int T> __global__ void __launch_bounds__(T, 4) k(float* p) { p[threadIdx.x] = 1.0f; }", "k<256>");
  REQUIRE_MESSAGE(with_min_blocks.ok, with_min_blocks.log);
  CHECK(with_min_blocks.resources.max_threads_per_block == 256);

  const CompileResult free = compile("__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }", "k");
  REQUIRE_MESSAGE(free.ok, free.log);
  CHECK(free.resources.max_threads_per_block == 0);
  CHECK(cubin_max_threads_per_block(free.cubin, "no_such_kernel") == 0);
}

TEST_CASE("bytes that are not a CUBIN are refused, a cut one too, never read past their end") {
  CHECK_THROWS_AS(cubin_max_threads_per_block({'n', 'o'}, "k"), std::invalid_argument);
  const CompileResult r = compile("__global__ void __launch_bounds__(64) k(float* p) { p[0] = 1.0f; }", "k");
  REQUIRE(r.ok);
  std::vector<char> cut(r.cubin.begin(), r.cubin.begin() + static_cast<std::ptrdiff_t>(r.cubin.size() / 2));
  CHECK_THROWS_AS(cubin_max_threads_per_block(cut, r.lowered_name), std::invalid_argument);
  CHECK_THROWS_AS(cubin_kernel_symbols(cut), std::invalid_argument);
}

TEST_CASE("a CUBIN damaged anywhere gives a bound in range or an invalid_argument, never a read out of bounds") {
  const CompileResult r = compile("__global__ void __launch_bounds__(64) k(float* p) { p[0] = 1.0f; }", "k");
  REQUIRE(r.ok);
  // Every byte of the ELF header set to 0xff in turn, then every 16th byte
  // (section headers' offsets and sizes, .nv.info record formats and lengths).
  for (std::size_t at = 0; at < r.cubin.size(); at += at < 64 ? 1 : 16) {
    std::vector<char> damaged = r.cubin;
    damaged[at] = static_cast<char>(0xff);
    try {
      const int bound = cubin_max_threads_per_block(damaged, r.lowered_name);
      CHECK(bound >= 0);
      CHECK(bound <= (1 << 20));
    } catch (const std::invalid_argument&) {
    }
  }
}
