#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace memtune;
using memtune::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t temporaries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(".tmp") != std::string::npos;
  return n;
}

} // namespace

TEST_CASE("an atomic write creates or replaces the file and leaves no temporary") {
  const TempDir dir;
  const fs::path file = dir.path / "sub" / "out.json";
  io::write_file_atomically(file, "one");
  CHECK(slurp(file) == "one");
  io::write_file_atomically(file, "two", io::Durability::no_fsync);
  CHECK(slurp(file) == "two");
  CHECK(temporaries(file.parent_path()) == 0);
}

TEST_CASE("a replaced file keeps its permissions") {
  const TempDir dir;
  const fs::path file = dir.path / "private.json";
  io::write_file_atomically(file, "a");
  ::chmod(file.c_str(), 0600);
  io::write_file_atomically(file, "b");
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("writing through a symbolic link updates its target and keeps the link") {
  const TempDir dir;
  fs::create_directories(dir.path / "real");
  const fs::path target = dir.path / "real" / "store.json";
  io::write_file_atomically(target, "old");
  const fs::path link = dir.path / "link.json";
  fs::create_symlink(fs::path("real") / "store.json", link);
  io::write_file_atomically(link, "new");
  CHECK(fs::is_symlink(link));
  CHECK(slurp(target) == "new");
  CHECK(io::output_file(link) == target.lexically_normal());
  CHECK(io::same_file(link, target));
  CHECK_FALSE(io::same_file(link, dir.path / "other.json"));
  CHECK(io::same_file(dir.path / "a" / ".." / "x.json", dir.path / "x.json")); // neither exists
}

TEST_CASE("a folder is refused before anything is created") {
  const TempDir dir;
  CHECK_THROWS_WITH_AS(io::write_file_atomically(dir.path, "x"), doctest::Contains("is a directory"), InputError);
  CHECK_THROWS_WITH_AS(io::update_file_locked(dir.path, [](const auto&) { return std::string("x"); }),
                       doctest::Contains("is a directory"), InputError);
  const std::string slash = (dir.path / "newdir").string() + "/";
  CHECK_THROWS_WITH_AS(io::write_file_atomically(slash, "x"), doctest::Contains("names a folder"), InputError);
  CHECK_THROWS_WITH_AS(io::update_file_locked(slash, [](const auto&) { return std::string("x"); }),
                       doctest::Contains("names a folder"), InputError);
  CHECK_THROWS_AS(io::write_file_atomically("/dev/null", "x"), InputError);
  CHECK_FALSE(fs::exists(dir.path.string() + ".lock"));
  CHECK_FALSE(fs::exists(dir.path / "newdir"));
  CHECK_FALSE(fs::exists(dir.path / "newdir.lock"));
}

TEST_CASE("a locked update sees the current content; an exception leaves the file untouched") {
  const TempDir dir;
  const fs::path file = dir.path / "store.json";
  io::update_file_locked(file, [](const std::optional<std::string>& current) {
    CHECK_FALSE(current);
    return std::string("1");
  });
  io::update_file_locked(file, [](const std::optional<std::string>& current) {
    REQUIRE(current);
    return *current + "2";
  });
  CHECK(slurp(file) == "12");
  CHECK_THROWS_AS(io::update_file_locked(file, [](const auto&) -> std::string { throw InputError("", 0, "", "no"); }),
                  InputError);
  CHECK(slurp(file) == "12");
}

TEST_CASE("temporaries of killed writers are removed by the next locked update, live ones kept") {
  const TempDir dir;
  const fs::path file = dir.path / "store.json";
  // A pid that cannot be alive (above pid_max), and memtune 0.1.0's naming.
  std::ofstream(dir.path / "store.json.tmp-2147483647-0").flush();
  std::ofstream(dir.path / "store.json.tmp3141592653").flush();
  // A live writer (this process's parent) may be writing: kept.
  const fs::path live = dir.path / ("store.json.tmp-" + std::to_string(::getppid()) + "-7");
  std::ofstream(live).flush();
  std::ofstream(dir.path / "other.json.tmp-2147483647-0").flush(); // another file's: kept
  io::update_file_locked(file, [](const auto&) { return std::string("x"); });
  CHECK_FALSE(fs::exists(dir.path / "store.json.tmp-2147483647-0"));
  CHECK_FALSE(fs::exists(dir.path / "store.json.tmp3141592653"));
  CHECK(fs::exists(live));
  CHECK(fs::exists(dir.path / "other.json.tmp-2147483647-0"));
}
