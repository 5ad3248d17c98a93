#include <memtune/compile/nvcc_compiler.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;

namespace {

// A file as published: host code, host headers and cooperative groups.
const char* const kSampleFile = R"(#include <cstdio>
#include <vector>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
namespace sample {
template <int TILE, typename T> __global__ void scale(T* x, int n) {
  cg::thread_block block = cg::this_thread_block();
  const int i = blockIdx.x * TILE + block.thread_rank();
  if (i < n) x[i] *= T(2);
}
}
__global__ void plain(float* x) { x[0] = 1.0f; }
template __global__ void sample::scale<4, float>(float*, int);
int main() {
  std::vector<float> v(16);
  std::printf("%zu\n", v.size());
  return 0;
}
)";

CompileRequest sample(const std::string& name) {
  CompileRequest r;
  r.source = kSampleFile;
  r.source_name = "sample.cu";
  r.name_expression = name;
  r.options = {"-std=c++17"};
  r.compute_capability = 90;
  r.compiler = CompilerKind::nvcc;
  return r;
}

} // namespace

TEST_CASE("nvcc compiles a file with host code and cooperative groups to a CUBIN, naming the instantiation") {
  const CompileResult r = nvcc_compile(sample("sample::scale<64, double>"));
  INFO(r.log);
  REQUIRE(r.ok);
  CHECK(r.lowered_name == "_ZN6sample5scaleILi64EdEEvPT0_i");
  CHECK(r.resources.registers > 0);
  CHECK(r.compiler.rfind("nvcc ", 0) == 0);
  const auto symbols = cubin_kernel_symbols(r.cubin);
  CHECK(symbols.size() == 4); // the file's own instantiation, plain() and the marker are in the CUBIN too
  CHECK(nvcc_compile(sample("plain")).lowered_name == "_Z5plainPf");
}

TEST_CASE("an nvcc compile error is data holding nvcc's output") {
  CompileRequest r = sample("plain");
  r.source += "\n__global__ void broken() { undeclared(); }\n";
  const CompileResult result = nvcc_compile(r);
  CHECK_FALSE(result.ok);
  CHECK(result.log.find("undeclared") != std::string::npos);
}

TEST_CASE("the kernel symbol is found by demangled name, or the only one of that name") {
  const std::vector<std::string> symbols{"_ZN2ns2trILi64EdEEvPT0_", "_ZN2ns2trILi4EfEEvPT0_", "_Z5plainPf", "saxpy"};
  CHECK(find_kernel_symbol(symbols, "ns::tr<64, double>") == "_ZN2ns2trILi64EdEEvPT0_");
  CHECK(find_kernel_symbol(symbols, "::ns::tr< 4,float >") == "_ZN2ns2trILi4EfEEvPT0_");
  CHECK(find_kernel_symbol(symbols, "plain") == "_Z5plainPf");
  CHECK(find_kernel_symbol(symbols, "saxpy") == "saxpy"); // extern "C"
  CHECK_THROWS_WITH_AS(find_kernel_symbol(symbols, "ns::tr<8, float>"), doctest::Contains("2 are named like it"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(find_kernel_symbol(symbols, "missing"), doctest::Contains("ns::tr<64,double>"),
                       std::invalid_argument);
  CHECK_THROWS_AS(cubin_kernel_symbols({'n', 'o'}), std::invalid_argument);
}

TEST_CASE("the marker names the kernel as the compiler resolved it: a typedef, an extern \"C\" kernel") {
  // copy<uint8> with `typedef unsigned char uint8`: its symbol says unsigned
  // char, which the expression as written never matches; the marker's does.
  const std::vector<std::string> symbols{"_Z4copyIiEvPT_PKS0_", "_Z4copyIhEvPT_PKS0_",
                                         "_Z21memtune_kernel_markerIXadL_Z4copyIhEvPT_PKS1_EEEvv"};
  CHECK(find_kernel_symbol(symbols, "copy<uint8>") == "_Z4copyIhEvPT_PKS0_");
  const std::vector<std::string> plain{"saxpy", "_Z21memtune_kernel_markerIXadL_Z5saxpyPfEEEvv"};
  CHECK(find_kernel_symbol(plain, "saxpy") == "saxpy");
  // Without a marker, two instantiations of one name cannot be told apart.
  CHECK_THROWS_WITH_AS(find_kernel_symbol({symbols[0], symbols[1]}, "copy<uint8>"),
                       doctest::Contains("2 are named like it"), std::invalid_argument);
}

TEST_CASE("nvcc picks the typedef'd instantiation among those the file's own host code makes") {
  CompileRequest r = sample("sample::scale<8, real>");
  r.source = "typedef float real;\n" + r.source +
             "void launch_all(float* f, double* d) {\n"
             "  sample::scale<8, float><<<1, 8>>>(f, 8);\n"
             "  sample::scale<8, double><<<1, 8>>>(d, 8);\n"
             "}\n";
  const CompileResult result = nvcc_compile(r);
  INFO(result.log);
  REQUIRE(result.ok);
  CHECK(result.lowered_name == "_ZN6sample5scaleILi8EfEEvPT0_i");
}
