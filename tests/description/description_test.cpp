// What the tuning loop asks a kernel description (the fixtures in
// tests/assets/descriptions are kernels written as a user would).
#include <memtune/compile/compile_cache.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace memtune;

namespace {

const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

std::string config_text(const search::Space& space, const search::Config& c) { return space.format(c); }

} // namespace

TEST_CASE("a description file gives the problem, the space and every launch") {
  const KernelDescription d = load_description(kAssets / "transpose.json");
  CHECK(d.name == "transpose_test");
  CHECK(d.origin == (kAssets / "transpose.json").string());
  CHECK(d.size_variables() == std::vector<std::string>{"rows", "cols"});
  const Problem problem = d.complete({{"rows", 1000}});
  CHECK(problem == Problem{{"rows", 1000}, {"cols", 1024}});
  CHECK_THROWS_WITH_AS(d.complete({{"depth", 3}}), doctest::Contains("unknown problem parameter 'depth'"),
                       std::invalid_argument);
  CHECK_THROWS_AS(d.complete({{"rows", 0}}), std::invalid_argument);

  const Target& h100 = catalogue_target("h100");
  const search::Space space = d.space(problem, h100);
  CHECK(space.cross_product_size() == 24);
  CHECK(space.enumerate().size() == 24);
  // Problem variables and device attributes are bound; the derived value is inlined.
  REQUIRE(space.constraints().size() == 3);
  CHECK(space.constraints()[0].to_string() == "(TILE * ROWS) <= 1024");
  CHECK(space.constraints()[0].reason() == "threads per block above the device limit");
  CHECK(space.constraints()[2].reason() == "(((TILE * (TILE + PAD)) * 4) <= max_shared_memory_per_block)");

  Target small = h100;
  small.max_threads_per_block = 256;
  const search::Space narrow = d.space(problem, small);
  CHECK(narrow.enumerate().size() == 18); // 16x{2..16}, 32x{2,4,8}, 64x{2,4}; PAD 0 or 1
  CHECK(narrow.violation({{"TILE", 64}, {"ROWS", 8}, {"PAD", 0}}).value().find("device limit") != std::string::npos);

  const search::Config c{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}};
  const LaunchSpec l = d.launch(c, {{"rows", 1000}, {"cols", 3000}}, h100);
  CHECK(l.name_expression == "transpose<32, 8, 1>");
  CHECK(l.block == Dim3{32, 8, 1});
  CHECK(l.grid == Dim3{94, 32, 1});
  CHECK(l.dynamic_smem_bytes == 0);
  CHECK(l.options.empty());

  CHECK(d.bytes_moved({{"rows", 1000}, {"cols", 3000}}) == 2ULL * 1000 * 3000 * 4);
  CHECK(config_text(space, d.default_config(problem, h100)) == "TILE=32 ROWS=8 PAD=1");
  CHECK(config_text(space, d.reference_configuration(problem, h100)) == "TILE=16 ROWS=16 PAD=1");

  const search::Config env = d.environment(c, problem, h100);
  CHECK(env.at("threads") == 256);
  CHECK(env.at("rows") == 1000);
  CHECK(env.at("sm_count") == h100.sm_count);
  CHECK(env.at("TILE") == 32);
  CHECK_FALSE(d.environment({}, problem, h100).has("threads")); // reads parameters
}

TEST_CASE("the compile request carries the source, headers, include paths and options") {
  const KernelDescription d = load_description(kAssets / "scale.json");
  const Target& h100 = catalogue_target("h100");
  const Problem problem = d.complete({{"n", 1 << 20}});
  const search::Config c{{"BLOCK", 256}, {"ACCUMULATE", 1}, {"LOAD", 1}, {"WAVES", 2}};
  const LaunchSpec l = d.launch(c, problem, h100);
  CHECK(l.name_expression == "scale<256, true, memtune_test::ldg>");
  // min(4096, 132 SMs * 2); options are rendered per candidate too ({REGS})
  CHECK(l.options == std::vector<std::string>{"-DMEMTUNE_TEST_BLOCKS=264", "-use_fast_math"});
  CHECK(l.grid == Dim3{264, 1, 1});
  CHECK(l.block == Dim3{256, 1, 1});

  const CompileRequest r = d.compile_request(l, 90);
  CHECK(r.source_name == "scale.cu");
  CHECK(r.source.find("__launch_bounds__(BLOCK)") != std::string::npos);
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].name == "scale_common.cuh");
  REQUIRE(r.include_paths.size() == 1);
  CHECK(std::filesystem::path(r.include_paths[0]) == (kAssets / "include").lexically_normal());
  CHECK(r.options == std::vector<std::string>{"-DMEMTUNE_TEST_BLOCKS=264", "-use_fast_math", "-lineinfo", "-std=c++17"});
  CHECK(r.compute_capability == 90);

  // NVRTC finds the in-memory header and the one on the include path.
  const CompileResult compiled = nvrtc_compile(r);
  CHECK_MESSAGE(compiled.ok, compiled.log);
  CHECK(compiled.lowered_name.find("scale") != std::string::npos);
  CHECK(compiled.resources.registers > 0);

  const LaunchSpec ref = d.reference_launch(problem, h100);
  CHECK(ref.name_expression == "scale<256, 1, memtune_test::plain>");
  CHECK(ref.grid == Dim3{4096, 1, 1});
  const CompileResult ref_compiled = nvrtc_compile(d.reference_compile_request(ref, 90));
  CHECK_MESSAGE(ref_compiled.ok, ref_compiled.log);
}

TEST_CASE("labels, booleans and parameters that only exist on some GPUs") {
  const KernelDescription d = load_description(kAssets / "scale.json");
  const Target& h100 = catalogue_target("h100");
  const Target& k20 = catalogue_target("k20");
  const Problem axpy = d.complete({});
  CHECK(axpy.at("op") == 1);
  CHECK(format_problem(axpy, d.problem) == "n=16777216 op=axpy");

  // axpy accumulates; ldg only from 256 threads: 4 plain + 3 ldg blocks, times 3 wave counts.
  const search::Space space = d.space(axpy, h100);
  CHECK(space.enumerate().size() == 21);
  for (const auto& c : space.enumerate()) CHECK(c.at("ACCUMULATE") == 1);
  CHECK(space.pruned().empty());
  const search::Space scale = d.space(d.complete({{"op", 0}}), h100);
  for (const auto& c : scale.enumerate()) CHECK(c.at("ACCUMULATE") == 0);

  const search::Space kepler = d.space(axpy, k20);
  REQUIRE(kepler.pruned().size() == 1);
  CHECK(kepler.pruned()[0].name == "WAVES");
  CHECK(kepler.pruned()[0].reason == "sm_35 runs one wave");
  CHECK(kepler.enumerate().size() == 7);
  // The guarded read of WAVES (compute_capability >= 70 ? WAVES : 1) works where it is pruned.
  const LaunchSpec l = d.launch({{"BLOCK", 128}, {"ACCUMULATE", 1}, {"LOAD", 0}}, axpy, k20);
  CHECK(l.grid == Dim3{static_cast<unsigned>(k20.sm_count), 1, 1});
  CHECK(l.name_expression == "scale<128, true, memtune_test::plain>");
  CHECK(d.bytes_moved(axpy) == 3ULL * 16777216 * 4);
  // No "default": the first valid configuration in grid order.
  CHECK(space.format(d.default_config(axpy, h100)) == "BLOCK=128 ACCUMULATE=true LOAD=plain WAVES=1");
}

TEST_CASE("device attributes an expression can read") {
  const Target& h100 = catalogue_target("h100");
  const auto attributes = device_attributes(h100);
  CHECK(attributes.size() == device_attribute_names().size());
  CHECK(attributes.at("compute_capability") == 90);
  CHECK(attributes.at("sm_count") == h100.sm_count);
  CHECK(attributes.at("warp_size") == 32);
  CHECK(attributes.at("max_shared_memory_per_block_optin") == static_cast<std::int64_t>(h100.smem_per_block_optin));
  CHECK(attributes.at("bank_mode_choice") == 0);
  CHECK(device_attributes(catalogue_target("k20")).at("bank_mode_choice") == 1);
}

TEST_CASE("a launch that cannot be made names the field and the value") {
  const KernelDescription d = KernelBuilder("k")
                                  .source("k.cu", "__global__ void k(float* y, int n) {}")
                                  .kernel("k")
                                  .size("n", 1000, "elements")
                                  .parameter(search::Axis::ordinal("B", {0, 64}))
                                  .block("B")
                                  .grid("ceil_div(n, 64) - 15")
                                  .buffer("y", ElementType::f32, "n", BufferRole::out)
                                  .scalar("n", ElementType::i32, "n")
                                  .build();
  const Target& h100 = catalogue_target("h100");
  CHECK_THROWS_WITH_AS(d.launch({{"B", 0}}, d.complete({}), h100),
                       doctest::Contains("launch.block[0] = B is 0: a launch needs at least 1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(d.launch({{"B", 64}}, d.complete({{"n", 64}}), h100),
                       doctest::Contains("launch.grid[0]"), std::invalid_argument);
  CHECK(d.launch({{"B", 64}}, d.complete({}), h100).grid.x == 1);
}

TEST_CASE("the fingerprint changes with what is measured, and only with that") {
  const KernelDescription d = load_description(kAssets / "transpose.json");
  CHECK(d.fingerprint().size() == 32);
  CHECK(d.fingerprint() == load_description(kAssets / "transpose.json").fingerprint());

  KernelDescription edited = d;
  edited.source.files[0].text += "\n// a comment changes the compiled text\n";
  CHECK(edited.fingerprint() != d.fingerprint());
  KernelDescription fewer = d;
  fewer.constraints.pop_back();
  CHECK(fewer.fingerprint() != d.fingerprint());
  KernelDescription moved = d;
  moved.origin = "/elsewhere/transpose.json";
  CHECK(moved.fingerprint() == d.fingerprint());
}

TEST_CASE("to_json writes the file format back") {
  for (const char* file : {"transpose.json", "scale.json"}) {
    CAPTURE(file);
    const KernelDescription d = load_description(kAssets / file);
    const nlohmann::ordered_json j = d.to_json();
    CHECK(j.at("schema_version") == kDescriptionSchemaVersion);
    const KernelDescription back = description_from_json(j, "written", kAssets);
    CHECK(back.to_json() == j);
    CHECK(back.fingerprint() == d.fingerprint());
    const Target& h100 = catalogue_target("h100");
    const Problem p = d.complete({});
    CHECK(back.space(p, h100).enumerate() == d.space(p, h100).enumerate());
  }
}

TEST_CASE("compile cache keys cover in-memory headers and the headers included from include paths") {
  const auto folder = std::filesystem::temp_directory_path() / ("memtune-include-key-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "sub");
  CompileRequest r;
  r.source = "#include \"h.cuh\"\n__global__ void k() {}";
  r.source_name = "k.cu";
  r.name_expression = "k";
  r.compute_capability = 90;
  const std::string plain = CompileCache::key_digest(r);
  CHECK(CompileCache::key_text(r).find("header=") == std::string::npos); // keys without headers are as before

  r.headers.push_back({"h.cuh", "#define X 1"});
  const std::string with_header = CompileCache::key_digest(r);
  CHECK(with_header != plain);
  r.headers[0].text = "#define X 2";
  CHECK(CompileCache::key_digest(r) != with_header);

  r.include_paths.push_back(folder.string());
  r.headers[0].text = "#include \"sub/deep.cuh\"\n#define X 2";
  const std::string empty_folder = CompileCache::key_digest(r);
  { std::ofstream(folder / "sub" / "deep.cuh") << "#define Y 1\n"; }
  const std::string one_file = CompileCache::key_digest(r);
  CHECK(one_file != empty_folder);
  { std::ofstream(folder / "sub" / "deep.cuh") << "#define Y 12\n"; }
  CHECK(CompileCache::key_digest(r) != one_file);
  std::filesystem::remove_all(folder);
}
