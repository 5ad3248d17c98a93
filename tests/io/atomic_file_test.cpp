#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

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
  io::write_file_atomically(file, "one", io::OutputKind::compile_cache);
  CHECK(slurp(file) == "one");
  io::write_file_atomically(file, "two", io::OutputKind::compile_cache, io::Durability::no_fsync);
  CHECK(slurp(file) == "two");
  CHECK(temporaries(file.parent_path()) == 0);
}

TEST_CASE("a replaced file keeps its permissions") {
  const TempDir dir;
  const fs::path file = dir.path / "private.json";
  io::write_file_atomically(file, "a", io::OutputKind::compile_cache);
  ::chmod(file.c_str(), 0600);
  io::write_file_atomically(file, "b", io::OutputKind::compile_cache);
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("writing through a symbolic link updates its target and keeps the link") {
  const TempDir dir;
  fs::create_directories(dir.path / "real");
  const fs::path target = dir.path / "real" / "store.json";
  io::write_file_atomically(target, "old", io::OutputKind::compile_cache);
  const fs::path link = dir.path / "link.json";
  fs::create_symlink(fs::path("real") / "store.json", link);
  io::write_file_atomically(link, "new", io::OutputKind::compile_cache);
  CHECK(fs::is_symlink(link));
  CHECK(slurp(target) == "new");
  CHECK(io::output_file(link) == target.lexically_normal());
  CHECK(io::same_file(link, target));
  CHECK_FALSE(io::same_file(link, dir.path / "other.json"));
  CHECK(io::same_file(dir.path / "a" / ".." / "x.json", dir.path / "x.json")); // neither exists
}

TEST_CASE("a folder is refused before anything is created") {
  const TempDir dir;
  CHECK_THROWS_WITH_AS(io::write_file_atomically(dir.path, "x", io::OutputKind::compile_cache), doctest::Contains("is a directory"), InputError);
  CHECK_THROWS_WITH_AS(io::update_file_locked(dir.path, io::OutputKind::compile_cache, [](const auto&) { return std::string("x"); }),
                       doctest::Contains("is a directory"), InputError);
  const std::string slash = (dir.path / "newdir").string() + "/";
  CHECK_THROWS_WITH_AS(io::write_file_atomically(slash, "x", io::OutputKind::compile_cache), doctest::Contains("names a folder"), InputError);
  CHECK_THROWS_WITH_AS(io::update_file_locked(slash, io::OutputKind::compile_cache, [](const auto&) { return std::string("x"); }),
                       doctest::Contains("names a folder"), InputError);
  CHECK_THROWS_AS(io::write_file_atomically("/dev/null", "x", io::OutputKind::compile_cache), InputError);
  CHECK_FALSE(fs::exists(dir.path.string() + ".lock"));
  CHECK_FALSE(fs::exists(dir.path / "newdir"));
  CHECK_FALSE(fs::exists(dir.path / "newdir.lock"));
}

TEST_CASE("a locked update sees the current content; an exception leaves the file untouched") {
  const TempDir dir;
  const fs::path file = dir.path / "store.json";
  io::update_file_locked(file, io::OutputKind::compile_cache, [](const std::optional<std::string>& current) {
    CHECK_FALSE(current);
    return std::string("1");
  });
  io::update_file_locked(file, io::OutputKind::compile_cache, [](const std::optional<std::string>& current) {
    REQUIRE(current);
    return *current + "2";
  });
  CHECK(slurp(file) == "12");
  CHECK_THROWS_AS(io::update_file_locked(file, io::OutputKind::compile_cache, [](const auto&) -> std::string { throw InputError("", 0, "", "no"); }),
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
  io::update_file_locked(file, io::OutputKind::compile_cache, [](const auto&) { return std::string("x"); });
  CHECK_FALSE(fs::exists(dir.path / "store.json.tmp-2147483647-0"));
  CHECK_FALSE(fs::exists(dir.path / "store.json.tmp3141592653"));
  CHECK(fs::exists(live));
  CHECK(fs::exists(dir.path / "other.json.tmp-2147483647-0"));
}

// The output-file policy, every kind of output against every kind of path:
// what must be written is written, everything else refused with the file
// named and the old file (or device) unchanged.
namespace {

struct Sample {
  io::OutputKind kind;
  std::string text; // a small file of the kind, as its writer would leave it
};

const std::vector<Sample>& samples() {
  static const std::vector<Sample> s{
      {io::OutputKind::profile_store, "{\"schema_version\": 1, \"entries\": []}\n"},
      {io::OutputKind::recording, "{\"schema_version\": 1, \"space\": {}, \"trials\": []}\n"},
      {io::OutputKind::journal, "{\"journal\":\"memtune\",\"journal_version\":1}\n"},
      {io::OutputKind::html_report, "<!DOCTYPE html>\n<html><head><title>memtune report: x</title></head></html>\n"},
      {io::OutputKind::kernel_tuner_cache, "{\"tune_params_keys\": [], \"cache\": {}}\n"},
      {io::OutputKind::probe_results, "{\"schema_version\": 1, \"command\": \"probe\"}\n"},
      {io::OutputKind::target_profile, "{\"schema_version\": 1, \"cc_major\": 9, \"sm_count\": 132}\n"},
      {io::OutputKind::csv_table, "offset,gbps\n0,2800\n"},
  };
  return s;
}

bool is_root() { return ::geteuid() == 0; }

} // namespace

TEST_CASE("policy: a file of the writer's kind, an empty file or none is written; one of another kind never") {
  for (const Sample& writer : samples()) {
    CAPTURE(io::to_string(writer.kind));
    const TempDir dir;
    const fs::path fresh = dir.path / "new" / "out";
    io::write_file_atomically(fresh, writer.text, writer.kind);
    CHECK(slurp(fresh) == writer.text);
    io::write_file_atomically(fresh, writer.text + " ", writer.kind); // its own kind: replaced
    CHECK(slurp(fresh) == writer.text + " ");
    const fs::path empty = dir.path / "empty";
    std::ofstream(empty).flush();
    io::write_file_atomically(empty, writer.text, writer.kind);
    CHECK(slurp(empty) == writer.text);
    for (const Sample& other : samples()) {
      if (other.kind == writer.kind) continue;
      CAPTURE(io::to_string(other.kind));
      const fs::path file = dir.path / "other";
      std::ofstream(file) << other.text;
      const std::string says = file.string() + ": exists and is not a memtune " + io::to_string(writer.kind);
      CHECK_THROWS_WITH_AS(io::write_file_atomically(file, writer.text, writer.kind), doctest::Contains(says.c_str()),
                           InputError);
      CHECK_THROWS_AS((void)io::check_output(file, writer.kind), InputError);
      CHECK(slurp(file) == other.text);
      CHECK(temporaries(dir.path) == 0);
    }
    const fs::path notes = dir.path / "notes.txt";
    std::ofstream(notes) << "notes";
    CHECK_THROWS_WITH_AS(io::write_file_atomically(notes, writer.text, writer.kind),
                         doctest::Contains("it holds text memtune did not write"), InputError);
    CHECK(slurp(notes) == "notes");
  }
}

TEST_CASE("policy: links are followed, a dangling one creates its target; hard links are one file") {
  for (const Sample& writer : samples()) {
    CAPTURE(io::to_string(writer.kind));
    const TempDir dir;
    const fs::path target = dir.path / "target";
    std::ofstream(target) << writer.text;
    fs::create_symlink(target, dir.path / "link");
    io::write_file_atomically(dir.path / "link", writer.text + "\n", writer.kind);
    CHECK(fs::is_symlink(dir.path / "link"));
    CHECK(slurp(target) == writer.text + "\n");
    fs::create_symlink(dir.path / "missing", dir.path / "dangling");
    io::write_file_atomically(dir.path / "dangling", writer.text, writer.kind);
    CHECK(fs::is_symlink(dir.path / "dangling"));
    CHECK(slurp(dir.path / "missing") == writer.text);
    fs::create_hard_link(target, dir.path / "hard");
    CHECK(io::same_file(dir.path / "hard", target));
    CHECK(io::same_file(dir.path / "link", dir.path / "hard"));
    CHECK_FALSE(io::same_file(dir.path / "hard", dir.path / "missing"));
  }
}

TEST_CASE("policy: a folder, a FIFO, a device or a socket is refused, and stays what it was") {
  const TempDir dir;
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_symlink(fifo, dir.path / "link-to-fifo");
  fs::create_symlink("/dev/null", dir.path / "link-to-null");
  for (const Sample& writer : samples()) {
    CAPTURE(io::to_string(writer.kind));
    CHECK_THROWS_WITH_AS(io::write_file_atomically(dir.path, writer.text, writer.kind), doctest::Contains("is a directory"),
                         InputError);
    for (const fs::path& special : {fifo, dir.path / "link-to-fifo", fs::path("/dev/null"), fs::path("/dev/full"),
                                    dir.path / "link-to-null"}) {
      CAPTURE(special);
      CHECK_THROWS_WITH_AS(io::write_file_atomically(special, writer.text, writer.kind),
                           doctest::Contains("is not a regular file"), InputError);
      CHECK_THROWS_AS((void)io::check_output(special, writer.kind), InputError);
    }
    CHECK(fs::is_fifo(fifo));
    CHECK(fs::is_character_file("/dev/null"));
    CHECK(fs::is_character_file("/dev/full"));
    CHECK(fs::is_symlink(dir.path / "link-to-null"));
    CHECK(temporaries(dir.path) == 0);
  }
}

TEST_CASE("policy: a read-only file or folder is refused before the run, with the system's reason") {
  if (is_root()) {
    MESSAGE("skipped: root writes read-only files (permissions are not checked for root)");
    return;
  }
  for (const Sample& writer : samples()) {
    CAPTURE(io::to_string(writer.kind));
    const TempDir dir;
    const fs::path file = dir.path / "ro";
    std::ofstream(file) << writer.text;
    ::chmod(file.c_str(), 0444);
    CHECK_THROWS_WITH_AS((void)io::check_output(file, writer.kind), doctest::Contains("Permission denied"), InputError);
    const fs::path folder = dir.path / "ro-dir";
    fs::create_directories(folder);
    ::chmod(folder.c_str(), 0555);
    CHECK_THROWS_WITH_AS((void)io::check_output(folder / "out", writer.kind),
                         doctest::Contains("cannot be written in the folder"), InputError);
    CHECK_THROWS_AS(io::write_file_atomically(folder / "sub" / "out", writer.text, writer.kind), InputError);
    ::chmod(folder.c_str(), 0755);
    CHECK(slurp(file) == writer.text);
  }
}

TEST_CASE("policy: a file inside a file, a write that fails (file system full) leaves the old file and says why") {
  const TempDir dir;
  const fs::path plain = dir.path / "plain";
  std::ofstream(plain) << "x";
  CHECK_THROWS_WITH_AS((void)io::check_output(plain / "out.json", io::OutputKind::recording),
                       doctest::Contains("is not a folder"), InputError);
  // A write the system refuses midway (as on a full disk: RLIMIT_FSIZE gives
  // EFBIG where a full disk gives ENOSPC): the error names the file and the
  // system's reason, the old content stays, no temporary is left.
  for (const Sample& writer : samples()) {
    CAPTURE(io::to_string(writer.kind));
    const fs::path file = dir.path / "out";
    std::ofstream(file, std::ios::trunc) << writer.text;
    struct rlimit old {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
    const auto previous = ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 16;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::string message;
    try {
      io::write_file_atomically(file, writer.text + std::string(4096, ' '), writer.kind);
    } catch (const InputError& e) {
      message = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, previous);
    CHECK(message.find(file.string() + ": cannot write: " + std::strerror(EFBIG)) != std::string::npos);
    CHECK(slurp(file) == writer.text);
    CHECK(temporaries(dir.path) == 0);
  }
}

TEST_CASE("policy: a relative path in folders that do not exist yet is created under the working directory") {
  const TempDir dir;
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path);
  std::string error;
  try {
    (void)io::check_output("new/deeper/out.json", io::OutputKind::recording);
    io::write_file_atomically("new/deeper/out.json", "{}", io::OutputKind::recording);
  } catch (const InputError& e) {
    error = e.what();
  }
  fs::current_path(previous);
  CHECK(error.empty());
  CHECK(slurp(dir.path / "new" / "deeper" / "out.json") == "{}");
}
