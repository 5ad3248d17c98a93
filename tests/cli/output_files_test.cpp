// The output-file policy (io/atomic_file.hpp) through every command that
// writes a file (check_outputs, option_checks.hpp): --save, --record,
// --report, --journal/--resume, `report -o`, `export -o`, `import -o`,
// `merge -o`, `profile merge --into`. Each against a FIFO, a device, a
// folder, a link, a dangling link, a file of another kind and another output
// of the same command: what existed before is unchanged, and the error says
// which file and why. All modeled (--target), no GPU.
#include "run_cli.hpp"
#include "temp_dir.hpp"

#include <memtune/profile/profile_store.hpp>
#include <memtune/search/recording.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

using namespace memtune;
using memtune::testing::CliRun;
using memtune::testing::run_cli;
using memtune::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kDescriptions = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A modeled one-configuration run of filter at size `n`: quick, no GPU.
CliRun tune(std::vector<std::string> extra, const std::string& n = "1M") {
  std::vector<std::string> args{"filter", "--n", n, "--target", "k20", "-q", "--only",
                                "block_size=256,packing=1,items=4,vec=4,align=1,bank_mode=8"};
  args.insert(args.end(), extra.begin(), extra.end());
  return memtune::testing::run_cli_args(args);
}

CliRun run(const std::vector<std::string>& args) { return memtune::testing::run_cli_args(args); }

struct Files {
  TempDir dir;
  std::string store = (dir.path / "store.json").string();
  std::string recording = (dir.path / "run.json").string();
  std::string kt = (dir.path / "kt.json").string();
  Files() {
    REQUIRE(tune({"--save", store, "--record", recording}).code == 0);
    REQUIRE(run({"export", recording, "-o", kt}).code == 0);
  }
};

// Every writer, as a command that writes `out` (the other files it needs from `f`).
struct Writer {
  const char* name;
  std::function<CliRun(const Files& f, const std::string& out)> run;
};

std::vector<Writer> writers() {
  return {
      {"--save", [](const Files&, const std::string& o) { return tune({"--save", o}); }},
      {"--record", [](const Files&, const std::string& o) { return tune({"--record", o}); }},
      {"--report", [](const Files&, const std::string& o) { return tune({"--report", o}); }},
      {"--journal", [](const Files&, const std::string& o) { return tune({"--journal", o}); }},
      {"report -o", [](const Files& f, const std::string& o) { return run({"report", f.recording, "-o", o}); }},
      {"export -o", [](const Files& f, const std::string& o) { return run({"export", f.recording, "-o", o}); }},
      {"import -o", [](const Files& f, const std::string& o) { return run({"import", f.kt, "-o", o}); }},
      {"merge -o (recordings)", [](const Files& f, const std::string& o) { return run({"merge", f.recording, "-o", o}); }},
      {"merge -o (stores)", [](const Files& f, const std::string& o) { return run({"merge", f.store, "-o", o}); }},
      {"profile merge --into", [](const Files& f, const std::string& o) { return run({"profile", "merge", f.store, "--into", o}); }},
  };
}

} // namespace

TEST_CASE("every writer: a FIFO, a device, a folder is refused at once, and stays what it was") {
  const Files f;
  const fs::path fifo = f.dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_directories(f.dir.path / "folder");
  fs::create_symlink("/dev/null", f.dir.path / "null-link");
  for (const Writer& w : writers()) {
    CAPTURE(w.name);
    for (const fs::path& target : {fifo, fs::path("/dev/null"), fs::path("/dev/full"), f.dir.path / "null-link"}) {
      CAPTURE(target);
      const auto start = std::chrono::steady_clock::now();
      const CliRun r = w.run(f, target.string());
      CHECK(r.code != 0);
      CHECK_MESSAGE(r.err.find("is not a regular file") != std::string::npos, r.err);
      CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30)); // never blocked on the FIFO
    }
    const CliRun folder = w.run(f, (f.dir.path / "folder").string());
    CHECK(folder.code != 0);
    CHECK_MESSAGE(folder.err.find("is a directory") != std::string::npos, folder.err);
    CHECK(fs::is_fifo(fifo));
    CHECK(fs::is_character_file("/dev/null"));
    CHECK(fs::is_symlink(f.dir.path / "null-link"));
    CHECK(fs::is_empty(f.dir.path / "folder"));
  }
}

TEST_CASE("every writer: a link is followed (the link stays), a dangling link creates its target") {
  for (const Writer& w : writers()) {
    CAPTURE(w.name);
    const Files f;
    const fs::path target = f.dir.path / "real" / "out";
    fs::create_directories(target.parent_path());
    fs::create_symlink(target, f.dir.path / "dangling");
    const CliRun first = w.run(f, (f.dir.path / "dangling").string());
    CHECK_MESSAGE(first.code == 0, first.err);
    CHECK(fs::is_symlink(f.dir.path / "dangling"));
    CHECK(fs::is_regular_file(target));
    // Again through the link: the target is of the writer's kind now, replaced or joined.
    const CliRun second = w.run(f, (f.dir.path / "dangling").string());
    CHECK_MESSAGE(second.code == 0, second.err);
    CHECK(fs::is_symlink(f.dir.path / "dangling"));
  }
}

TEST_CASE("every writer: a file of another kind, or notes, is never replaced") {
  const Files f;
  const std::string notes = f.dir.file("notes.txt", "notes");
  for (const Writer& w : writers()) {
    CAPTURE(w.name);
    const CliRun r = w.run(f, notes);
    CHECK(r.code != 0);
    CHECK_MESSAGE(r.err.find("so it is not replaced") != std::string::npos, r.err);
    CHECK(slurp(notes) == "notes");
  }
  // The store is of one kind only: every writer but the store's refuses it.
  const std::string before = slurp(f.store);
  for (const Writer& w : writers()) {
    const std::string name = w.name;
    if (name == "--save" || name == "merge -o (stores)" || name == "profile merge --into") continue;
    CAPTURE(w.name);
    const CliRun r = w.run(f, f.store);
    CHECK(r.code != 0);
    CHECK_MESSAGE(r.err.find("it holds a profile store") != std::string::npos, r.err);
    CHECK(slurp(f.store) == before);
  }
}

TEST_CASE("every writer: a read-only file or folder is refused before the run") {
  if (::geteuid() == 0) {
    MESSAGE("skipped: root writes read-only files and folders (the policy's own checks: tests/io/atomic_file_test.cpp)");
    return;
  }
  for (const Writer& w : writers()) {
    CAPTURE(w.name);
    const Files f;
    const fs::path folder = f.dir.path / "ro";
    fs::create_directories(folder);
    ::chmod(folder.c_str(), 0555);
    const CliRun r = w.run(f, (folder / "out").string());
    ::chmod(folder.c_str(), 0755);
    CHECK(r.code != 0);
    CHECK_MESSAGE(r.err.find("Permission denied") != std::string::npos, r.err);
    CHECK(r.out.empty()); // refused before anything ran
  }
}

TEST_CASE("two outputs of one command naming one file are refused before the run") {
  const Files f;
  const std::string store = slurp(f.store), recording = slurp(f.recording);
  // --report S --save S: the store was overwritten with HTML, then said "left untouched".
  CliRun r = tune({"--report", f.store, "--save", f.store});
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.err.find("both name one file: the HTML report would replace the profile store") != std::string::npos, r.err);
  CHECK(r.err.find("left untouched") == std::string::npos);
  CHECK(r.out.empty());
  r = tune({"--report", f.recording, "--record", f.recording});
  CHECK(r.code == 2);
  CHECK(r.err.find("both name one file") != std::string::npos);
  // Through a link, a hard link, and for the journal.
  fs::create_symlink(f.store, f.dir.path / "link.json");
  fs::create_hard_link(f.store, f.dir.path / "hard.json");
  CHECK(tune({"--save", f.store, "--report", (f.dir.path / "link.json").string()}).code == 2);
  CHECK(tune({"--save", f.store, "--report", (f.dir.path / "hard.json").string()}).code == 2);
  CHECK(tune({"--record", f.recording, "--journal", f.recording}).code == 2);
  // report R -o R, export R -o store.json: the input or a store is no report, no export.
  r = run({"report", f.recording, "-o", f.recording});
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.err.find("is not a memtune HTML report, so it is not replaced (it holds a recording)") != std::string::npos, r.err);
  r = run({"export", f.recording, "-o", f.store});
  CHECK(r.code == 1);
  CHECK(r.err.find("it holds a profile store") != std::string::npos);
  // merge -o onto its --save.
  CHECK(run({"merge", f.recording, "-o", (f.dir.path / "m.json").string(), "--save", (f.dir.path / "m.json").string()}).code == 2);
  CHECK(slurp(f.store) == store);
  CHECK(slurp(f.recording) == recording);
  CHECK_FALSE(fs::exists(f.dir.path / "m.json"));
}

TEST_CASE("--journal and --resume never truncate a file that is not a journal into one") {
  const TempDir dir;
  const std::string notes = dir.file("n.txt", "notes"); // printf notes > n.txt: no newline
  for (const char* option : {"--journal", "--resume"}) {
    CAPTURE(option);
    const CliRun r = tune({option, notes});
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.err.find("is not a memtune journal, so it is not replaced (it holds text memtune did not write)") !=
                      std::string::npos,
                  r.err);
    CHECK(slurp(notes) == "notes");
  }
  // A journal is resumed, an empty file becomes one.
  const std::string empty = dir.file("empty.jsonl", "");
  CHECK(tune({"--journal", empty}).code == 0);
  CHECK(slurp(empty).rfind("{\"bytes_moved\":", 0) == 0);
  CHECK(tune({"--resume", empty}).code == 0);
}

TEST_CASE("memtune merge STORES -o onto an existing store joins it, as profile merge --into does") {
  const TempDir dir;
  const std::string a = (dir.path / "a.json").string(), b = (dir.path / "b.json").string(),
                    app = (dir.path / "app.json").string(), into = (dir.path / "into.json").string();
  REQUIRE(tune({"--save", a}, "1M").code == 0);
  REQUIRE(tune({"--save", b}, "2M").code == 0);
  REQUIRE(tune({"--save", app}, "4M").code == 0);
  REQUIRE(tune({"--save", app}, "8M").code == 0);
  std::filesystem::copy_file(app, into);
  const CliRun r = run({"merge", a, b, "-o", app});
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(ProfileStore(app).entries().size() == 4); // its 2 kept, the inputs' 2 added
  REQUIRE(run({"profile", "merge", a, b, "--into", into}).code == 0);
  CHECK(ProfileStore(into).entries().size() == 4);
  // Again: nothing new, nothing lost.
  CHECK(run({"merge", a, b, "-o", app}).code == 0);
  CHECK(ProfileStore(app).entries().size() == 4);
}

TEST_CASE("tune --spec without a model section: its recording, report, merge and rerun all work") {
  const TempDir dir;
  const std::string record = (dir.path / "saxpy.json").string(), report = (dir.path / "saxpy.html").string();
  const std::vector<std::string> command{"tune", "--spec", kDescriptions + "/saxpy.json", "--target", "h100", "-q",
                                         "--record", record, "--report", report};
  const CliRun first = run(command);
  CHECK_MESSAGE(first.code == 0, first.err);
  const search::Recording rec = search::load_recording(record);
  REQUIRE_FALSE(rec.trials.empty());
  std::size_t not_modeled = 0;
  for (const auto& t : rec.trials) {
    CHECK_FALSE(t.ok());
    not_modeled += t.status == "not_modeled";
  }
  CHECK(not_modeled > 0); // every candidate that compiled and fits

  CHECK(slurp(report).find("<title>memtune report") != std::string::npos);
  const CliRun again = run(command); // the same command again replaces both
  CHECK_MESSAGE(again.code == 0, again.err);
  const CliRun rep = run({"report", record, "-o", (dir.path / "again.html").string()});
  CHECK_MESSAGE(rep.code == 0, rep.err);
  const CliRun merged = run({"merge", record, "-o", (dir.path / "merged.json").string()});
  CHECK_MESSAGE(merged.code == 0, merged.err);
  // --from such a recording: modeled, no measured time to transfer, said so.
  const CliRun from = run({"tune", "--spec", kDescriptions + "/saxpy.json", "--target", "a100", "-q", "--from", record});
  CHECK(from.code == 1);
  CHECK_MESSAGE(from.err.find(record + ": a modeled recording (predicted times, not measured)") != std::string::npos,
                from.err);
}

TEST_CASE("a FIFO or a device as --spec or as a kernel source is refused, not read") {
  const TempDir dir;
  const fs::path fifo = dir.path / "spec.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CliRun r = run({"tune", "--spec", fifo.string(), "--target", "h100", "-q"});
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.err.find("is not a regular file") != std::string::npos, r.err);
  // saxpy.json next to a source that is a FIFO, then /dev/zero.
  const fs::path spec = dir.path / "saxpy.json";
  fs::copy_file(kDescriptions + "/saxpy.json", spec);
  REQUIRE(::mkfifo((dir.path / "saxpy.cu").c_str(), 0644) == 0);
  r = run({"tune", "--spec", spec.string(), "--target", "h100", "-q"});
  CHECK(r.code == 1);
  CHECK_MESSAGE(r.err.find("source.files[0]") != std::string::npos, r.err);
  CHECK(r.err.find("is not a regular file") != std::string::npos);
  fs::remove(dir.path / "saxpy.cu");
  fs::create_symlink("/dev/zero", dir.path / "saxpy.cu");
  const auto start = std::chrono::steady_clock::now();
  r = run({"tune", "--spec", spec.string(), "--target", "h100", "-q"});
  CHECK(r.code == 1);
  CHECK(r.err.find("is not a regular file") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}
