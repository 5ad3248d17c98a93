// `memtune sweep`: the sizes --over names (ranges log-spaced, lists, several
// variables moving together, errors named), the files of each size, and a
// modeled sweep end to end through the CLI: one profile entry per size, the
// report, and `profile show` printing the per-call rule.
#include "sweep_command.hpp"
#include "sweep_over.hpp"

#include "../temp_dir.hpp"
#include "app.hpp"
#include "run_cli.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/profile/profile_store.hpp>

#include <memtune/search/recording.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include <unistd.h>

using namespace memtune;
using namespace memtune::cli;

namespace {

std::string argument_error(const std::vector<std::string>& items, std::size_t points = 8) {
  try {
    (void)sweep_points(parse_over(items, points));
  } catch (const ArgumentError& e) {
    return e.what(); // "ARGUMENT: why"
  }
  return "(no error)";
}

using Run = memtune::testing::CliRun;

Run cli_run(const std::vector<std::string>& args) { return memtune::testing::run_cli_args(args); }

std::string cache_dir() {
  return (std::filesystem::temp_directory_path() / ("memtune-sweep-test-cache-" + std::to_string(::getuid()))).string();
}

} // namespace

TEST_CASE("log_spaced: both ends exactly, evenly spaced on a log scale, odd sizes as they fall") {
  CHECK(log_spaced(64 << 10, 256 << 20, 7) ==
        std::vector<std::int64_t>{64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20});
  const auto v = log_spaced(1 << 20, 16 << 20, 8);
  REQUIRE(v.size() == 8);
  CHECK(v.front() == 1 << 20);
  CHECK(v.back() == 16 << 20);
  CHECK(v[1] == 1558178); // 2^20 * 16^(1/7), rounded: not a power of two
  for (std::size_t i = 1; i + 1 < v.size(); ++i)
    CHECK(std::log(static_cast<double>(v[i + 1]) / v[i]) == doctest::Approx(std::log(16.0) / 7).epsilon(1e-4));
  CHECK(log_spaced(5, 5, 8) == std::vector<std::int64_t>{5});
  CHECK(log_spaced(1, 3, 8) == std::vector<std::int64_t>{1, 2, 3}); // duplicates of small sizes dropped
  CHECK(log_spaced(100, 1000, 1) == std::vector<std::int64_t>{100});
}

TEST_CASE("--over: a range, a list with K/M suffixes, and variables moving together") {
  const auto range = parse_over({"n=64K:256M"}, 4);
  REQUIRE(range.size() == 1);
  CHECK(range[0].name == "n");
  CHECK(range[0].range);
  CHECK(range[0].values == std::vector<std::int64_t>{64 << 10, 1 << 20, 16 << 20, 256 << 20});

  // CLI11 splits on commas; the same text unsplit reads the same.
  for (const auto& items : {std::vector<std::string>{"n=1000003", "4M", "16M"}, std::vector<std::string>{"n=1000003,4M,16M"}}) {
    const auto list = parse_over(items, 8);
    REQUIRE(list.size() == 1);
    CHECK_FALSE(list[0].range);
    CHECK(list[0].values == std::vector<std::int64_t>{1000003, 4 << 20, 16 << 20});
  }

  const auto two = sweep_points(parse_over({"rows=1K:64K", "cols=1K:64K"}, 3));
  REQUIRE(two.size() == 3);
  CHECK(two[1] == std::map<std::string, std::int64_t>{{"rows", 8192}, {"cols", 8192}});
  // A single value is held at every point.
  const auto held = sweep_points(parse_over({"rows=1K,2K,4K", "cols=3001"}, 8));
  REQUIRE(held.size() == 3);
  CHECK(held[2] == std::map<std::string, std::int64_t>{{"rows", 4096}, {"cols", 3001}});
}

TEST_CASE("--over: every mistake is an ArgumentError naming the item and why") {
  CHECK(argument_error({"64K:256M"}) == "--over 64K:256M: needs NAME= first (e.g. n=64K:256M)");
  CHECK(argument_error({"=1M"}) == "--over =1M: needs a problem variable's name before '='");
  CHECK(argument_error({"n=16M:1M"}) ==
        "--over n=16M:1M: the range runs from 16777216 down to 1048576: write LO:HI, low first");
  CHECK(argument_error({"n=1X"}) == "--over n=1X: '1X' is not a size (digits with an optional K, M or G)");
  CHECK(argument_error({"n="}) == "--over n=: '' is not a size (digits with an optional K, M or G)");
  CHECK(argument_error({"n=0:1M"}) == "--over n=0:1M: sizes start at 1, got 0");
  CHECK(argument_error({"n=1M", "n=2M"}) == "--over n: is given twice");
  CHECK(argument_error({"n=1M:4M", "8M"}) == "--over 8M: n is a range already; a list item cannot follow it");
  CHECK(argument_error({"n=1M:4M"}, 0) == "--points 0: a range n=1M:4M has two ends: --points 2 or more, or one size (n=1048576)");
  CHECK(argument_error({"n=1M:4M"}, 1) == "--points 1: a range n=1M:4M has two ends: --points 2 or more, or one size (n=1048576)");
  CHECK(argument_error({"n=1M:1M"}, 1) == "(no error)");
  CHECK(argument_error({"n=1,1,1"}) == "--over 1: n=1 is in the list twice");
  CHECK(argument_error({"n=1,,2"}) == "--over n: has an empty item in its list (two commas in a row, or one at the end)");
  CHECK(argument_error({"n=1,2,"}) == "--over n: has an empty item in its list (two commas in a row, or one at the end)");
  CHECK(argument_error({",n=1"}) == "--over: starts with a comma: write NAME=V1,V2,...");
  CHECK(argument_error({"n=1", ""}) == "--over n: has an empty item in its list (two commas in a row, or one at the end)");
  CHECK(argument_error({"rows=1K,2K", "cols=1K,2K,4K"}) ==
        "--over: the variables move together, so each needs as many sizes as the others (cols has 3, another 2)");
}

TEST_CASE("each size keeps its own files: the size before the extension") {
  CHECK(path_for_point("out/run.json", {{"n", 65536}}) == "out/run.n65536.json");
  CHECK(path_for_point("j.jsonl", {{"rows", 1024}, {"cols", 3001}}) == "j.cols3001-rows1024.jsonl");
  CHECK(path_for_point("", {{"n", 1}}).empty());
}

TEST_CASE("memtune sweep: bad arguments are named before anything runs") {
  auto r = cli_run({"sweep", "filterx", "--over", "n=1M:4M", "--target", "h100-sxm"});
  CHECK(r.code == 2);
  CHECK(r.err.find("sweep filterx: is not a built-in template (") != std::string::npos);
  r = cli_run({"sweep", "filter", "--over", "m=1M:4M", "--target", "h100-sxm"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--over m: is not a problem variable of filter (n, taps") != std::string::npos);
  r = cli_run({"sweep", "filter", "--over", "n=1M:4M", "--set", "n=2M", "--target", "h100-sxm"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--set n: is swept by --over") != std::string::npos);
  r = cli_run({"sweep", "--over", "n=1M:4M", "--target", "h100-sxm"});
  CHECK(r.code == 2);
  CHECK(r.err.find("needs a template") != std::string::npos);
  r = cli_run({"sweep", "filter", "--over", "n=1M,,2M", "--target", "h100-sxm"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--over n: has an empty item in its list") != std::string::npos);
}

TEST_CASE("memtune sweep: a device or a folder given as --record is refused, nothing written beside it") {
  const memtune::testing::TempDir dir;
  for (const std::string& record : {std::string("/dev/null"), dir.path.string()}) {
    CAPTURE(record);
    const auto r = cli_run({"sweep", "filter", "--over", "n=64K,256K", "--target", "h100-sxm", "--strategy", "random",
                            "--budget", "2", "--record", record, "--cache-dir", cache_dir()});
    CHECK(r.code == 2);
    CHECK(r.err.find("--record " + record + ": ") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(record + ".n65536"));
  }
}

TEST_CASE("memtune sweep: every size's files are checked before the first size runs") {
  const memtune::testing::TempDir dir;
  const std::string record = (dir.path / "r.json").string();
  const std::filesystem::path foreign = dir.path / "r.n262144.json";
  { std::ofstream(foreign) << "my notes\n"; }
  const auto r = cli_run({"sweep", "filter", "--over", "n=64K,256K", "--target", "h100-sxm", "--strategy", "random",
                          "--budget", "2", "--record", record, "--cache-dir", cache_dir()});
  CHECK(r.code == 1);
  CHECK(r.err.find("r.n262144.json") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "r.n65536.json")); // the first size never ran
  std::ifstream in(foreign);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "my notes\n");
}

TEST_CASE("memtune sweep filter --over n=64K:16M --points 4 --target h100-sxm: one entry per size, the report, the rule") {
  memtune::testing::TempDir dir;
  const std::string store = (dir.path / "sweep.memtune.json").string();
  const std::string json = (dir.path / "sweep.json").string();
  auto r = cli_run({"sweep", "filter", "--over", "n=64K:16M", "--points", "4", "--target", "h100-sxm", "--strategy",
                    "bayes", "--budget", "12", "--save", store, "--cache-dir", cache_dir(), "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("memtune sweep filter") != std::string::npos);
  CHECK(r.out.find("modeled for") != std::string::npos);
  CHECK(r.out.find("best configuration") != std::string::npos);
  CHECK(r.out.find("n=65536") != std::string::npos);
  CHECK(r.out.find("n=16777216") != std::string::npos);
  CHECK(r.out.find("4 sizes, ") != std::string::npos);
  CHECK(r.out.find("saved one entry per size to " + store) != std::string::npos);

  const auto entries = ProfileStore(store).entries();
  REQUIRE(entries.size() == 4);
  std::vector<std::int64_t> sizes;
  for (const ProfileEntry& e : entries) {
    sizes.push_back(e.problem.at("n"));
    CHECK(e.mode == "modeled");
    CHECK(e.runner_ups.size() > 5); // the sweep keeps more for the per-call rule
  }
  std::sort(sizes.begin(), sizes.end());
  // 64K to 16M is 256x: 4 points are 256^(1/3) = 6.35x apart.
  CHECK(sizes == std::vector<std::int64_t>{65536, 416128, 2642246, 16777216});

  // The JSON report: the same rows, the later sizes warm-started from the nearest done.
  r = cli_run({"sweep", "filter", "--over", "n=64K:16M", "--points", "4", "--target", "h100-sxm", "--strategy", "bayes",
               "--budget", "12", "--json", "--cache-dir", cache_dir(), "-q"});
  REQUIRE(r.code == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("template") == "filter");
  CHECK(doc.at("mode") == "modeled");
  REQUIRE(doc.at("sizes").size() == 4);
  CHECK(doc.at("sizes")[0].at("search_prior").get<std::string>().find("warm start") == std::string::npos);
  for (std::size_t i = 1; i < 4; ++i)
    CHECK(doc.at("sizes")[i].at("search_prior").get<std::string>().rfind("warm start from n=", 0) == 0);
  CHECK(doc.at("sizes")[1].at("search_prior").get<std::string>().find("n=65536") != std::string::npos);
  CHECK(doc.at("evaluations").get<std::size_t>() <= 4 * 12);
  CHECK(doc.at("sizes")[0].at("config").is_object());

  // profile show prints the per-call rule of the swept group.
  r = cli_run({"profile", "show", store, "--index", "0"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("per-call rule (4 sizes of filter") != std::string::npos);
  CHECK(r.out.find("pick at midpoint") != std::string::npos);
  CHECK(r.out.find("n=65536 taps=21 .. n=416128 taps=21") != std::string::npos);

  // What the launcher takes: the entry of a stored size, the interpolated pick between two.
  r = cli_run({"profile", "pick", store, "--template", "filter", "--set", "n=1M", "--target", "h100-sxm", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto pick = nlohmann::json::parse(r.out);
  CHECK(pick.at("origin").get<std::string>().rfind("profile (interpolated between n=416128 taps=21 and n=2642246 taps=21", 0) == 0);
  CHECK(pick.at("expected_loss").get<double>() >= 0);
  CHECK(pick.at("config").is_object());
  r = cli_run({"profile", "pick", store, "--template", "filter", "--set", "n=16M", "--target", "h100-sxm"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("from: profile\n") != std::string::npos);
}

TEST_CASE("memtune sweep --strategy bayes: each size measures the best of the size below first, and its entry keeps it") {
  memtune::testing::TempDir dir;
  const std::string store = (dir.path / "sweep.memtune.json").string();
  const std::string record = (dir.path / "r.json").string();
  // 40 candidates: more than an entry's 16 fastest runner-ups, so what is kept beyond them shows.
  auto r = cli_run({"sweep", "filter", "--over", "n=4K,1M,256M", "--target", "h100-sxm", "--strategy", "bayes",
                    "--budget", "40", "--save", store, "--record", record, "--cache-dir", cache_dir(), "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  nlohmann::json before_best;
  for (const char* n : {"4096", "1048576", "268435456"}) {
    const auto rec = search::load_recording(dir.path / (std::string("r.n") + n + ".json"));
    const auto best = rec.best();
    REQUIRE(best);
    if (!before_best.is_null()) {
      CAPTURE(n);
      CHECK(rec.space.config_to_json(rec.trials.front().config) == before_best);
      // The profile entry of this size keeps the size below's best, timed here.
      bool kept = false;
      for (const ProfileEntry& e : ProfileStore(store).entries())
        if (std::to_string(e.problem.at("n")) == n)
          for (const auto& u : e.runner_ups) kept = kept || u.at("config") == before_best || e.config == before_best;
      CHECK(kept);
    }
    before_best = rec.space.config_to_json(best->config);
  }
  // Every entry keeps each other size's best that its size timed, below as above.
  std::vector<nlohmann::json> bests;
  std::map<std::int64_t, search::Recording> recordings;
  for (std::int64_t n : {4096, 1048576, 268435456}) {
    auto rec = search::load_recording(dir.path / ("r.n" + std::to_string(n) + ".json"));
    bests.push_back(rec.space.config_to_json(rec.best()->config));
    recordings.emplace(n, std::move(rec));
  }
  for (const ProfileEntry& e : ProfileStore(store).entries()) {
    const search::Recording& rec = recordings.at(e.problem.at("n"));
    for (const nlohmann::json& other : bests) {
      bool timed = false;
      for (const auto& t : rec.trials) timed = timed || (t.ok() && rec.space.config_to_json(t.config) == other);
      bool kept = e.config == other;
      for (const auto& u : e.runner_ups) kept = kept || u.at("config") == other;
      CAPTURE(e.problem.at("n"));
      CHECK(kept == timed);
    }
  }
}

TEST_CASE("memtune sweep --journal: a journal per size, and the same command resumes size by size") {
  memtune::testing::TempDir dir;
  const std::string journal = (dir.path / "s.jsonl").string();
  const std::vector<std::string> args{"sweep", "filter", "--over", "n=1000003,4M", "--target", "h100-sxm", "--strategy",
                                      "bayes", "--budget", "6", "--journal", journal, "--json", "--cache-dir",
                                      cache_dir(), "-q"};
  auto r = cli_run(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(std::filesystem::exists(dir.path / "s.n1000003.jsonl"));
  CHECK(std::filesystem::exists(dir.path / "s.n4194304.jsonl"));
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("sizes")[0].at("resumed") == 0);
  r = cli_run(args);
  REQUIRE(r.code == 0);
  doc = nlohmann::json::parse(r.out);
  for (const auto& size : doc.at("sizes")) CHECK(size.at("resumed").get<std::size_t>() > 0);

  r = cli_run({"sweep", "filter", "--over", "n=1M,2M", "--target", "h100-sxm", "--resume",
               (dir.path / "none.jsonl").string(), "-q"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--resume " + (dir.path / "none.jsonl").string() + ": no size of this sweep has a journal") !=
        std::string::npos);
}

TEST_CASE("memtune sweep: a size without a best says why, and nothing saved is not called saved") {
  const memtune::testing::TempDir dir;
  const std::string spec = (std::filesystem::path(MEMTUNE_TEST_ASSETS_DIR) / "descriptions" / "saxpy.json").string();
  const std::string store = (dir.path / "s.json").string();
  // saxpy has no model section: a modeled candidate runs with no time.
  const auto r = cli_run({"sweep", "--spec", spec, "--over", "n=1M,2M", "--target", "h100-sxm", "--save", store,
                          "--cache-dir", cache_dir()});
  CHECK(r.out.find("(none: the time is not modeled: the description has no \"model\" section)") != std::string::npos);
  CHECK(r.out.find("no ranking: the time of saxpy is not modeled. Measure it on a GPU (--target local)") !=
        std::string::npos);
  CHECK(r.out.find("nothing saved to " + store + ": no size has a best configuration") != std::string::npos);
  CHECK(r.out.find("saved one entry per size") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(store));
}

TEST_CASE("memtune profile pick/show --spec: a user's kernel swept, picked between sizes and its rule shown") {
  memtune::testing::TempDir dir;
  const std::string store = (dir.path / "sweep.memtune.json").string();
  const std::string spec = std::string(MEMTUNE_TEST_EXAMPLES_DIR) + "/kernels/transpose/transpose.json";
  auto r = cli_run({"sweep", "--spec", spec, "--over", "rows=1K:16K,cols=1K:16K", "--points", "3", "--target",
                    "h100-sxm", "--save", store, "--cache-dir", cache_dir(), "-q"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(ProfileStore(store).entries().size() == 3);

  r = cli_run({"profile", "pick", store, "--spec", spec, "--set", "rows=2000,cols=3000", "--target", "h100-sxm",
               "--format", "json"});
  REQUIRE(r.code == 0);
  const auto pick = nlohmann::json::parse(r.out);
  CHECK(pick.at("origin").get<std::string>().rfind("profile (interpolated between cols=1024 rows=1024 and cols=4096 "
                                                   "rows=4096", 0) == 0);
  CHECK(pick.at("config").contains("TILE"));

  // A user's kernel is not a built-in template; --template and --spec are one or the other.
  r = cli_run({"profile", "pick", store, "--template", "user_transpose", "--set", "rows=2000"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("a kernel of your own: --spec FILE") != std::string::npos);
  r = cli_run({"profile", "pick", store, "--spec", spec, "--template", "transpose"});
  CHECK(r.code == kExitUsage);
  r = cli_run({"profile", "pick", store});
  CHECK(r.code == kExitUsage);

  // show: the rule with the description says nothing of a missing one; another kernel's is refused.
  r = cli_run({"profile", "show", store, "--index", "0", "--spec", spec});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("per-call rule (3 sizes of user_transpose") != std::string::npos);
  CHECK(r.out.find("description is not here") == std::string::npos);
  r = cli_run({"profile", "show", store, "--index", "0"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("description is not here: with --spec FILE") != std::string::npos);
  r = cli_run({"profile", "show", store, "--index", "0", "--spec",
               std::string(MEMTUNE_TEST_EXAMPLES_DIR) + "/kernels/haxpy/haxpy.json"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("describes user_haxpy, and entry 0 is of user_transpose") != std::string::npos);
}
