#include <memtune/compile/compile_cache.hpp>

#include "../temp_dir.hpp"

#include <doctest/doctest.h>

#include <chrono>

#include <filesystem>
#include <fstream>
#include <random>

using namespace memtune;

namespace {

CompileRequest request() {
  CompileRequest r;
  r.source = "template <int N> __global__ void k(float* p) { p[threadIdx.x] *= N; }";
  r.source_name = "k.cu";
  r.name_expression = "k<2>";
  r.options = {"-DX=1"};
  r.compute_capability = 90;
  return r;
}

std::filesystem::path fresh_folder() {
  std::random_device rd;
  auto p = std::filesystem::temp_directory_path() / ("memtune-cache-test-" + std::to_string(rd()));
  std::filesystem::remove_all(p);
  return p;
}

} // namespace

TEST_CASE("cache keys change with source, name, options, architecture") {
  const CompileRequest base = request();
  const std::string key = CompileCache::key_digest(base);
  CHECK(key.size() == 32);
  CHECK(CompileCache::key_digest(base) == key);
  CompileRequest r = base;
  r.source += " ";
  CHECK(CompileCache::key_digest(r) != key);
  r = base;
  r.name_expression = "k<3>";
  CHECK(CompileCache::key_digest(r) != key);
  r = base;
  r.options = {"-DX=2"};
  CHECK(CompileCache::key_digest(r) != key);
  r = base;
  r.compute_capability = 80;
  CHECK(CompileCache::key_digest(r) != key);
  CHECK(CompileCache::key_text(base).find("compiler=NVRTC ") != std::string::npos);
}

TEST_CASE("a compiled kernel is stored once and then served from the cache") {
  const auto folder = fresh_folder();
  const CompileCache cache(folder);
  const CompileResult first = compile_cached(request(), &cache);
  REQUIRE(first.ok);
  CHECK_FALSE(first.from_cache);
  const CompileResult second = compile_cached(request(), &cache);
  CHECK(second.from_cache);
  CHECK(second.cubin == first.cubin);
  CHECK(second.lowered_name == first.lowered_name);
  CHECK(second.resources.registers == first.resources.registers);
  std::filesystem::remove_all(folder);
}

TEST_CASE("a damaged cache entry is a miss, never a wrong kernel") {
  const auto folder = fresh_folder();
  const CompileCache cache(folder);
  REQUIRE(compile_cached(request(), &cache).ok);
  const std::string digest = CompileCache::key_digest(request());
  {
    std::ofstream truncate(folder / (digest + ".cubin"), std::ios::trunc);
    truncate << "x";
  }
  CHECK_FALSE(cache.load(request()).has_value());
  {
    std::ofstream garbage(folder / (digest + ".json"), std::ios::trunc);
    garbage << "{not json";
  }
  CHECK_FALSE(cache.load(request()).has_value());
  const CompileResult again = compile_cached(request(), &cache);
  CHECK(again.ok);
  CHECK_FALSE(again.from_cache);
  CHECK(cache.load(request()).has_value()); // repaired
  std::filesystem::remove_all(folder);
}

TEST_CASE("failed compiles are not cached") {
  const auto folder = fresh_folder();
  const CompileCache cache(folder);
  CompileRequest r = request();
  r.source = "__global__ void k() { nope; }";
  r.name_expression = "k";
  CHECK_FALSE(compile_cached(r, &cache).ok);
  CHECK_FALSE(cache.load(r).has_value());
  std::filesystem::remove_all(folder);
}

TEST_CASE("default cache folder follows MEMTUNE_CACHE_DIR") {
  ::setenv("MEMTUNE_CACHE_DIR", "/tmp/memtune-here", 1);
  CHECK(CompileCache::default_folder() == std::filesystem::path("/tmp/memtune-here"));
  ::unsetenv("MEMTUNE_CACHE_DIR");
  CHECK(CompileCache::default_folder().string().find("memtune") != std::string::npos);
}

TEST_CASE("the key holds the content of the headers the source includes, not a listing of the toolkit") {
  const memtune::testing::TempDir dir;
  std::filesystem::create_directories(dir.path / "inc");
  (void)dir.file("inc/tile.cuh", "#pragma once\n#define TILE 32\n");
  (void)dir.file("unrelated.cuh", "// never included\n");
  CompileRequest r = request();
  r.source = "#include <cooperative_groups.h>\n#include \"tile.cuh\"\n" + r.source;
  r.include_paths = {(dir.path / "inc").string()};
  const std::string text = CompileCache::key_text(r);
  // Kilobytes: the source, the options and one digest of the included headers.
  CHECK(text.size() < 4096);
  CHECK(text.find("includes=") != std::string::npos);
  CHECK(text.find("unrelated") == std::string::npos);
  const std::string key = CompileCache::key_digest(r);
  // An edit of an included header misses.
  std::filesystem::last_write_time(dir.path / "inc" / "tile.cuh", std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  (void)dir.file("inc/tile.cuh", "#pragma once\n#define TILE 64\n");
  CHECK(CompileCache::key_digest(r) != key);
  // A file nobody includes does not change it.
  const std::string edited = CompileCache::key_digest(r);
  (void)dir.file("unrelated.cuh", "// changed\n");
  CHECK(CompileCache::key_digest(r) == edited);
}

TEST_CASE("relative and absolute spellings of one include folder give one cache key") {
  const memtune::testing::TempDir dir;
  std::filesystem::create_directories(dir.path / "inc");
  (void)dir.file("inc/tile.cuh", "#define TILE 32\n");
  CompileRequest absolute = request();
  absolute.source = "#include \"tile.cuh\"\n" + absolute.source;
  absolute.include_paths = {(dir.path / "inc").string()};
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path);
  CompileRequest relative = absolute;
  relative.include_paths = {"./inc/../inc"};
  const std::string from_here = CompileCache::key_digest(relative);
  std::filesystem::create_directories(dir.path / "sub");
  std::filesystem::current_path(dir.path / "sub");
  relative.include_paths = {"../inc"};
  const std::string from_below = CompileCache::key_digest(relative);
  std::filesystem::current_path(cwd);
  CHECK(from_here == CompileCache::key_digest(absolute));
  CHECK(from_below == from_here);
}
