// --no-isolation, --candidate-timeout, --journal, --resume and the journal of a
// --record run (cli/src/survival_options.hpp); and the promise they keep: a
// run killed with SIGKILL at a random candidate, then run again with the same
// command, measures no candidate twice (but the one in flight) and records
// what an uninterrupted run records. A scripted worker process plays the GPU.
#include "app.hpp"
#include "survival_options.hpp"

#include <memtune/io/errors.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

std::vector<const char*> argv_of(std::vector<std::string>& args) {
  std::vector<const char*> argv{"memtune"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return argv;
}

int run_cli(std::vector<std::string> args, std::string* err_text = nullptr) {
  std::ostringstream out, err;
  const auto argv = argv_of(args);
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  if (err_text) *err_text = err.str();
  return code;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

} // namespace

TEST_CASE("the survival options fill the tuning options, and refuse what makes no sense") {
  TuneOptions t;
  cli::SurvivalOptions o;
  cli::apply_survival_options(t, o, "");
  CHECK(t.isolation.enabled);
  CHECK_FALSE(t.journal.file);
  cli::apply_survival_options(t, o, "run.json");
  CHECK(*t.journal.file == "run.json.journal"); // a --record run keeps a journal until its recording is written
  o.resume = "old.journal";
  cli::apply_survival_options(t, o, "run.json");
  CHECK(*t.journal.file == "old.journal");
  CHECK(t.journal.must_exist);
  o.journal = "other.journal";
  CHECK_THROWS_WITH_AS(cli::apply_survival_options(t, o, ""),
                       "--journal other.journal --resume old.journal: they name two journals: give one", ArgumentError);
  o = {};
  o.no_isolation = true;
  o.candidate_timeout = 2.5;
  cli::apply_survival_options(t, o, "");
  CHECK_FALSE(t.isolation.enabled);
  CHECK(t.isolation.candidate_timeout_s == 2.5);
  o.candidate_timeout = -1;
  CHECK_THROWS_AS(cli::apply_survival_options(t, o, ""), ArgumentError);
}

TEST_CASE("--resume of a device names --resume, the option given") {
  std::string err;
  const int code = run_cli({"tune", "--spec", MEMTUNE_TEST_ASSETS_DIR "/descriptions/journal_space.json", "--target",
                            "h100", "--resume", "/dev/null", "-q"},
                           &err);
  CHECK(code == 2);
  CHECK(err.find("--resume /dev/null") != std::string::npos);
}

TEST_CASE("--resume of a journal that does not exist is an error naming it") {
  std::string err;
  const int code = run_cli({"tune", "--spec", MEMTUNE_TEST_ASSETS_DIR "/descriptions/journal_space.json", "--target",
                            "h100", "--resume", "/nonexistent/run.journal", "-q"},
                           &err);
  CHECK(code == 1);
  CHECK(err.find("/nonexistent/run.journal: no such journal to resume") != std::string::npos);
}

TEST_CASE("--record and --journal into folders that do not exist yet make them; a journal named by the user is kept") {
  const fs::path dir = fs::temp_directory_path() / ("memtune-journal-folders-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto command = [&](std::vector<std::string> more) {
    std::vector<std::string> c{"tune", "--spec", MEMTUNE_TEST_ASSETS_DIR "/descriptions/journal_space.json", "--target",
                               "h100", "--budget", "2", "--cache-dir", (dir / "cache").string(), "-q"};
    c.insert(c.end(), more.begin(), more.end());
    return c;
  };
  std::string err;
  CHECK(run_cli(command({"--record", (dir / "new" / "r.json").string()}), &err) == 0);
  CAPTURE(err);
  CHECK(fs::exists(dir / "new" / "r.json"));
  CHECK_FALSE(fs::exists(dir / "new" / "r.json.journal")); // the record's own journal, done with
  CHECK(run_cli(command({"--journal", (dir / "other" / "j.journal").string()}), &err) == 0);
  CHECK(fs::exists(dir / "other" / "j.journal"));
  // The user's --journal, though it has the name of the record's own: kept.
  const fs::path rj = dir / "rj.json";
  CHECK(run_cli(command({"--record", rj.string(), "--journal", rj.string() + ".journal"}), &err) == 0);
  CHECK(fs::exists(rj));
  CHECK(fs::exists(rj.string() + ".journal"));
  fs::remove_all(dir);
}

TEST_CASE("a shard resumes only its own journal: another shard's is refused, naming the field") {
  const fs::path dir = fs::temp_directory_path() / ("memtune-shard-journal-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto command = [&](const std::string& shard) {
    return std::vector<std::string>{"tune", "--spec", MEMTUNE_TEST_ASSETS_DIR "/descriptions/journal_space.json",
                                    "--target", "h100", "--shard", shard, "--budget", "2", "--journal",
                                    (dir / "run.journal").string(), "--cache-dir", (dir / "cache").string(), "-q"};
  };
  REQUIRE(run_cli(command("1/2")) == 0);
  std::string err;
  CHECK(run_cli(command("2/2"), &err) == 1);
  CAPTURE(err);
  CHECK(err.find("run.journal:1: field 'shard': this journal is of another shard (\"1/2\"; this run: \"2/2\")") !=
        std::string::npos);
  CHECK(run_cli(command("1/2")) == 0); // its own shard resumes
  fs::remove_all(dir);
}

TEST_CASE("kill -9 at a random candidate, then the same command: nothing measured twice, the same recording") {
  const fs::path dir = fs::temp_directory_path() / ("memtune-kill-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("MEMTUNE_WORKER", MEMTUNE_TEST_SCRIPTED_WORKER, 1);
  ::setenv("MEMTUNE_SCRIPTED_DELAY_MS", "25", 1);
  const auto command = [&](const fs::path& record) {
    return std::vector<std::string>{"tune", "--spec", MEMTUNE_TEST_ASSETS_DIR "/descriptions/journal_space.json",
                                    "--strategy", "bayes", "--budget", "24", "--seed", "5", "--record", record.string(),
                                    "--cache-dir", (dir / "cache").string(), "-q"};
  };
  ::setenv("MEMTUNE_SCRIPTED_LOG", (dir / "whole.log").c_str(), 1);
  REQUIRE(run_cli(command(dir / "whole.json")) == 0);
  const nlohmann::json whole = read_json(dir / "whole.json");
  CHECK_FALSE(fs::exists(dir / "whole.json.journal")); // removed once the recording is written

  std::mt19937 random(12345);
  for (int attempt = 0; attempt < 3; ++attempt) {
    CAPTURE(attempt);
    const fs::path record = dir / ("cut" + std::to_string(attempt) + ".json");
    const fs::path log = dir / ("cut" + std::to_string(attempt) + ".log");
    ::setenv("MEMTUNE_SCRIPTED_LOG", log.c_str(), 1);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      std::vector<std::string> args = command(record);
      const auto argv = argv_of(args);
      std::ostringstream out, err;
      ::_exit(cli::run(static_cast<int>(argv.size()), argv.data(), out, err));
    }
    // Somewhere in the run: after a few candidates, before the last.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(150, 500)(random)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status)); // killed mid-run, not finished
    REQUIRE(fs::exists(dir / (record.filename().string() + ".journal")));
    const std::size_t journaled = lines_of(dir / (record.filename().string() + ".journal")).size();
    CAPTURE(journaled);
    MESSAGE("killed with " << journaled << " journal lines (header and setup included)");

    REQUIRE(run_cli(command(record)) == 0); // resumes by itself
    CHECK_FALSE(fs::exists(dir / (record.filename().string() + ".journal")));
    const nlohmann::json resumed = read_json(record);
    REQUIRE(resumed.at("trials").size() == whole.at("trials").size());
    for (std::size_t i = 0; i < whole.at("trials").size(); ++i) {
      CHECK(resumed["trials"][i]["config"] == whole["trials"][i]["config"]);
      CHECK(resumed["trials"][i]["status"] == whole["trials"][i]["status"]);
      CHECK(resumed["trials"][i].value("time_s", 0.0) == whole["trials"][i].value("time_s", 0.0));
    }
    // Measured (by the worker) once each, but at most the one in flight when it was killed.
    std::map<std::string, int> times_measured;
    for (const std::string& line : lines_of(log)) ++times_measured[line];
    int twice = 0;
    for (const auto& [config, n] : times_measured) {
      CHECK(n <= 2);
      twice += n - 1;
    }
    CHECK(twice <= 1);
    CHECK(times_measured.size() == whole.at("trials").size());
  }
  ::unsetenv("MEMTUNE_SCRIPTED_LOG");
  ::unsetenv("MEMTUNE_SCRIPTED_DELAY_MS");
  ::unsetenv("MEMTUNE_WORKER");
  fs::remove_all(dir);
}
