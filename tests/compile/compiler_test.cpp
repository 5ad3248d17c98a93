#include <memtune/compile/compile_cache.hpp>
#include <memtune/compile/compiler.hpp>
#include <memtune/compile/cuda_toolkit.hpp>

#include "../temp_dir.hpp"

#include <doctest/doctest.h>

using namespace memtune;

namespace {

CompileRequest request(const std::string& source, CompilerKind kind = CompilerKind::automatic) {
  CompileRequest r;
  r.source = source;
  r.source_name = "k.cu";
  r.name_expression = "k<2>";
  r.options = {"-std=c++17"};
  r.compute_capability = 90;
  r.compiler = kind;
  return r;
}

const std::string kKernel = "template <int N> __global__ void k(float* p) { p[threadIdx.x] *= N; }\n";

} // namespace

TEST_CASE("automatic choice: NVRTC for a plain kernel, nvcc for host code or host headers") {
  const CompileResult plain = compile(request(kKernel + "// plain " + std::to_string(__LINE__)));
  REQUIRE(plain.ok);
  CHECK(plain.compiler.rfind("NVRTC ", 0) == 0);

  const CompileRequest host = request(kKernel + "int main() { return 0; } // " + std::to_string(__LINE__));
  const CompileResult with_host = compile(host);
  INFO(with_host.log);
  REQUIRE(with_host.ok);
  CHECK(with_host.compiler.rfind("nvcc ", 0) == 0);
  CHECK(remembered_compiler(host) == CompilerKind::nvcc); // later candidates skip NVRTC

  const CompileResult with_cstdio = compile(request("#include <cstdio>\n" + kKernel));
  REQUIRE(with_cstdio.ok);
  CHECK(with_cstdio.compiler.rfind("nvcc ", 0) == 0);
}

TEST_CASE("a forced back end is used as asked") {
  const CompileResult nvrtc = compile(request(kKernel + "int main() { return 0; }\n", CompilerKind::nvrtc));
  CHECK_FALSE(nvrtc.ok);
  CHECK(nvrtc_log_needs_nvcc(nvrtc.log));
  const CompileResult nvcc = compile(request(kKernel, CompilerKind::nvcc));
  REQUIRE(nvcc.ok);
  CHECK(nvcc.compiler.rfind("nvcc ", 0) == 0);
  CHECK(nvcc.lowered_name == "_Z1kILi2EEvPf");
  CHECK(compiler_kind_from_string("nvcc") == CompilerKind::nvcc);
  CHECK_THROWS_WITH_AS(compiler_kind_from_string("clang"), doctest::Contains("nvrtc, nvcc or auto"), std::invalid_argument);
}

TEST_CASE("NVRTC finds CUDA headers and the file's own folder without typed paths") {
  const memtune::testing::TempDir dir;
  (void)dir.file("scale.cuh", "#define SCALE 3\n");
  const std::string path = dir.file("k.cu", "");
  CompileRequest r = request("#include <cooperative_groups.h>\n#include <cuda_fp16.h>\n#include <cuda/std/type_traits>\n"
                             "#include \"scale.cuh\"\n" +
                                 kKernel,
                             CompilerKind::nvrtc);
  r.source_path = path;
  const CompileResult result = compile(r);
  INFO(result.log);
  CHECK(result.ok);
  const CompileRequest completed = with_discovered_includes(r);
  CHECK(completed.include_paths.front() == std::filesystem::canonical(dir.path).string());
  CHECK(completed.include_paths.size() == 1 + cuda_toolkit().include_dirs.size());
}

TEST_CASE("the compiler's warnings are kept apart from ptxas' report") {
  const CompileResult r = compile(request("#define TILE 1\n#define TILE 2\n" + kKernel, CompilerKind::nvrtc));
  REQUIRE(r.ok);
  CHECK(r.warnings.find("TILE") != std::string::npos);
  CHECK(r.warnings.find("ptxas") == std::string::npos);
  CHECK(compiler_warnings("k.cu(3): warning #47-D: incompatible redefinition of macro \"T\"\n  #define T 2\n          ^\n\n"
                          "ptxas info    : Used 8 registers") ==
        "k.cu(3): warning #47-D: incompatible redefinition of macro \"T\"\n  #define T 2\n          ^");
}

TEST_CASE("the cache serves an nvcc-compiled kernel, and the automatic choice finds it") {
  const memtune::testing::TempDir dir;
  const CompileCache cache(dir.path);
  const CompileRequest host = request(kKernel + "void helper() {} // " + dir.path.string() + "\n");
  const CompileResult first = compile_cached(host, &cache);
  REQUIRE(first.ok);
  const CompileResult second = compile_cached(host, &cache);
  CHECK(second.from_cache);
  CHECK(second.compiler == first.compiler);
  CHECK(second.lowered_name == first.lowered_name);
  CHECK(CompileCache::key_text(host).find("compiler=nvcc ") != std::string::npos);
}
