// How a description's source reaches the compiler: the back end it asks for,
// compiler options with parameters, and tunables the file itself #defines.
#include <memtune/compile/compiler.hpp>
#include <memtune/description/description_json.hpp>

#include "../temp_dir.hpp"
#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

using namespace memtune;
using nlohmann::ordered_json;

namespace {

// A sample as published: the tunable is a #define in the file, with host code.
const char* const kTranspose = R"(#include <cstdio>
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transpose(float* out, const float* in, int n) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
int main() { std::printf("host code\n"); return 0; }
)";

ordered_json description() {
  return ordered_json::parse(R"json({
    "schema_version": 1, "name": "sample_transpose",
    "source": {"files": ["transpose.cu"], "kernel": "transpose", "defines": ["TILE_DIM", "BLOCK_ROWS"],
               "options": ["-maxrregcount={REGS}", "--use_fast_math"]},
    "problem": {"n": {"default": 1024}},
    "parameters": {"TILE_DIM": [16, 32, 64], "BLOCK_ROWS": [4, 8], "REGS": [32, 64]},
    "launch": {"block": ["TILE_DIM", "BLOCK_ROWS"], "grid": ["ceil_div(n, TILE_DIM)", "ceil_div(n, TILE_DIM)"]},
    "arguments": [
      {"name": "out", "buffer": "float", "count": "n * n", "role": "out"},
      {"name": "in", "buffer": "float", "count": "n * n", "role": "in"},
      {"name": "n", "scalar": "int", "value": "n"}],
    "verify": {"reference_config": {"TILE_DIM": 16, "BLOCK_ROWS": 4, "REGS": 64}}
  })json");
}

std::string failure(const ordered_json& doc, const std::filesystem::path& base) {
  try {
    (void)description_from_json(doc, "k.json", base);
  } catch (const DescriptionError& e) {
    return e.what();
  }
  return "accepted";
}

} // namespace

TEST_CASE("a tunable #defined in the file is substituted in the compiled source; options take parameters") {
  const memtune::testing::TempDir dir;
  (void)dir.file("transpose.cu", kTranspose);
  const KernelDescription d = description_from_json(description(), "k.json", dir.path);
  const LaunchSpec l = d.launch({{"TILE_DIM", 64}, {"BLOCK_ROWS", 4}, {"REGS", 32}}, {{"n", 1024}}, catalogue_target("h100"));
  CHECK(std::find(l.options.begin(), l.options.end(), "-maxrregcount=32") != l.options.end());
  CHECK(std::find(l.options.begin(), l.options.end(), "--use_fast_math") != l.options.end());
  const CompileRequest r = d.compile_request(l, 90);
  std::string expected = kTranspose;
  expected.replace(expected.find("#define TILE_DIM 32"), 19, "#define TILE_DIM 64");
  expected.replace(expected.find("#define BLOCK_ROWS 8"), 20, "#define BLOCK_ROWS 4");
  CHECK(r.source == expected);
  CHECK(std::filesystem::equivalent(r.source_path, dir.path / "transpose.cu"));

  // The file has host code: compiled by nvcc, with the candidate's values.
  const CompileResult compiled = compile(r);
  INFO(compiled.log);
  REQUIRE(compiled.ok);
  CHECK(compiled.compiler.rfind("nvcc ", 0) == 0);
  CHECK(compiled.resources.static_smem_bytes == 64 * 65 * 4); // the tunable's value, not the file's 32
  CHECK(compiled.warnings.empty());                          // no #47-D redefinition: the line itself changed
}

TEST_CASE("the description chooses the compiler; a bad choice or option names the field") {
  const memtune::testing::TempDir dir;
  (void)dir.file("transpose.cu", kTranspose);
  ordered_json doc = description();
  doc["source"]["compiler"] = "nvrtc";
  CHECK(description_from_json(doc, "k.json", dir.path).source.compiler == CompilerKind::nvrtc);
  doc["source"]["compiler"] = "clang";
  CHECK(failure(doc, dir.path) == "k.json: field 'source.compiler': \"clang\" is not a compiler: use nvrtc, nvcc or auto");
  doc = description();
  doc["source"]["options"] = {"maxrregcount=32"};
  CHECK(failure(doc, dir.path).find("field 'source.options[0]': 'maxrregcount=32' is not one compiler option") !=
        std::string::npos);
  doc["source"]["options"] = {"-maxrregcount={UNKNOWN}"};
  CHECK(failure(doc, dir.path).find("source.options[0]") != std::string::npos);
}

TEST_CASE("a #define memtune cannot substitute is refused at load with the macro, the file and the line") {
  const memtune::testing::TempDir dir;
  std::string text = kTranspose;
  text.replace(text.find("#define BLOCK_ROWS 8"), 20, "#define BLOCK_ROWS(x) 8");
  (void)dir.file("transpose.cu", text);
  CHECK(failure(description(), dir.path) ==
        "k.json: field 'source.defines.BLOCK_ROWS': transpose.cu:3 defines BLOCK_ROWS as a function-like macro; memtune "
        "can only substitute a value (rename the tunable, or guard the definition with #ifndef BLOCK_ROWS)");
}
