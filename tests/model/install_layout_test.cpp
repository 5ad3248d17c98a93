#include <memtune/model/install_layout.hpp>
#include <memtune/measure/target_resolver.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using namespace memtune;

namespace {

bool holds(const std::vector<fs::path>& v, const fs::path& p) { return std::find(v.begin(), v.end(), p) != v.end(); }

} // namespace

TEST_CASE("install layout: data and worker are looked for from the running program, then the package") {
  const auto dir = running_program_dir();
  REQUIRE(dir);
  CHECK(fs::is_directory(*dir));
  // <build>/tests/memtune_cpu_tests: the build tree is a candidate prefix, as <prefix>/bin/memtune's prefix is.
  const auto data = data_candidates("targets");
  CHECK(data.front() == dir->parent_path() / "share" / "memtune" / "targets");
  CHECK(holds(data, dir->parent_path().parent_path() / "share" / "memtune" / "targets"));
  const auto workers = worker_candidates();
  CHECK(workers.front() == *dir / "memtune-worker");
  CHECK(holds(workers, dir->parent_path() / "libexec" / "memtune" / "memtune-worker"));

  // An application's package prefix comes last: its own folder is looked at first.
  const fs::path package = fs::temp_directory_path() / "memtune-package-prefix";
  register_package_prefix(package / "." / "");
  CHECK(data_candidates("targets").back() == package / "share" / "memtune" / "targets");
  CHECK(worker_candidates().back() == package / "libexec" / "memtune" / "memtune-worker");
}

TEST_CASE("install layout: the build tree's staged catalogue is the one found, no source path needed") {
  const char* saved = std::getenv("MEMTUNE_TARGETS_DIR");
  const std::string restore = saved ? saved : "";
  ::unsetenv("MEMTUNE_TARGETS_DIR");
  const fs::path folder = targets_folder();
  CHECK(folder == running_program_dir()->parent_path() / "share" / "memtune" / "targets");
  CHECK(load_targets().try_find("k20") != nullptr);
  if (saved) ::setenv("MEMTUNE_TARGETS_DIR", restore.c_str(), 1);
}
