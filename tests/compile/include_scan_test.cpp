#include <memtune/compile/cuda_toolkit.hpp>
#include <memtune/compile/include_scan.hpp>

#include "../temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace memtune;

namespace {

bool has(const std::vector<IncludedFile>& files, const std::string& tail) {
  return std::any_of(files.begin(), files.end(), [&](const IncludedFile& f) {
    return f.path.size() >= tail.size() && f.path.compare(f.path.size() - tail.size(), tail.size(), tail) == 0;
  });
}

} // namespace

TEST_CASE("includes are followed through the file's folder, in-memory headers and include folders") {
  const memtune::testing::TempDir dir;
  std::filesystem::create_directories(dir.path / "inc" / "deep");
  (void)dir.file("near.cuh", "#include <deep/far.cuh>\n");
  (void)dir.file("inc/deep/far.cuh", "  #  include \"sibling.cuh\"\n#include MACRO_HEADER\n");
  (void)dir.file("inc/deep/sibling.cuh", "// leaf\n");
  const std::string source = "#include \"near.cuh\"\n#include \"memory.cuh\"\n#if 0\n#include <nowhere.h>\n#endif\n";
  const auto files = scan_includes(source, dir.path, {{"memory.cuh", "#include \"near.cuh\"\n"}}, {dir.path / "inc"});
  CHECK(has(files, "/near.cuh"));
  CHECK(has(files, "/inc/deep/far.cuh"));
  CHECK(has(files, "/inc/deep/sibling.cuh")); // quoted: the including file's folder first
  CHECK(has(files, "<memory>/memory.cuh"));
  CHECK(has(files, "?nowhere.h"));    // every #include line counts, conditions or not
  CHECK(has(files, "?MACRO_HEADER")); // a computed include by its text
  CHECK(files.size() == 6);
  CHECK(std::is_sorted(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; }));
}

TEST_CASE("cooperative_groups.h pulls in a few hundred toolkit headers, each by content") {
  const CudaToolkit& t = cuda_toolkit();
  REQUIRE_FALSE(t.include_dirs.empty());
  const auto files = scan_includes("#include <cooperative_groups.h>\n", {}, {}, t.include_dirs);
  CHECK(has(files, "/cooperative_groups.h"));
  CHECK(files.size() > 5);
  CHECK(files.size() < 1000); // not the toolkit's ~3,700 headers
  for (const auto& f : files)
    if (f.path[0] == '/') CHECK(f.digest.size() == 32);
}
