#include "app.hpp"
#include "option_checks.hpp"
#include "run_cli.hpp"
#include "temp_dir.hpp"

#include <memtune/profile/profile_store.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace memtune::cli;
namespace fs = std::filesystem;

using Run = memtune::testing::CliRun;
using memtune::testing::run_cli;
using memtune::testing::TempDir;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A modeled one-configuration run: quick, and needs no GPU.
std::vector<const char*> quick(std::vector<const char*> extra) {
  std::vector<const char*> args{"filter", "--n", "1M", "--target", "k20", "-q", "--only",
                                "block_size=256,packing=1,items=4,vec=4,align=1,bank_mode=8"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

} // namespace

TEST_CASE("an unknown subcommand says so, suggests the nearest and lists the known ones") {
  const Run r = run_cli({"filtre", "--n", "1M"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("unknown command 'filtre' (did you mean 'filter'?)") != std::string::npos);
  CHECK(r.err.find("commands: filter") != std::string::npos);
  CHECK(r.err.find("targets") != std::string::npos);
  CHECK(run_cli({"xyzzy"}).err.find("did you mean") == std::string::npos);
  CHECK(unknown_command_message("prbe", {"filter", "probe"}).find("did you mean 'probe'") != std::string::npos);
}

TEST_CASE("arguments that were accepted silently are usage errors naming the option") {
  auto refused = [](std::vector<const char*> args, const std::string& says) {
    const Run r = run_cli(std::move(args));
    CHECK(r.code == kExitUsage);
    CHECK_MESSAGE(r.err.find(says) != std::string::npos, r.err);
    CHECK(r.out.empty());
  };
  refused({"filter", "--n", "", "--target", "k20"}, "--n '': not a size");
  refused({"filter", "--taps", "", "--target", "k20"}, "--taps '': not a size");
  refused({"filter", "--top", "-1", "--target", "k20"}, "--top");
  refused({"filter", "--budget", "-1", "--target", "k20"}, "--budget");
  refused({"filter", "--patience", "-1", "--target", "k20"}, "--patience");
  refused({"filter", "--top", "0", "--target", "k20"}, "--top");
  refused({"filter", "--time-budget", "nan", "--target", "k20"}, "--time-budget");
  refused({"filter", "--time-budget", "-2", "--target", "k20"}, "--time-budget");
  refused({"filter", "--seed", "-1", "--target", "k20"}, "--seed");
  refused({"filter", "--device", "-1"}, "--device");
  refused({"filter", "--target", "k20", "--only", "vec=4", "--only", "vec=2"}, "--only vec: the axis is fixed twice (4 and 2)");
  refused({"filter", "--target", "k20", "--only", "=4"}, "expected AXIS=VALUE");
}

TEST_CASE("the validators and parsers on their own") {
  std::string text = "18446744073709551615";
  CHECK(whole_number()(text).empty());
  text = "18446744073709551616";
  CHECK_FALSE(whole_number()(text).empty());
  text = "1.5";
  CHECK_FALSE(whole_number()(text).empty());
  text = "1e3";
  CHECK(seconds()(text).empty());
  text = "inf";
  CHECK_FALSE(seconds()(text).empty());
  CHECK(parse_only({"a=1", "b=x=y"}).at("b") == "x=y");
  CHECK(parse_only({"a=1,b=2", "c=x"}) == std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}, {"c", "x"}});
  CHECK_THROWS_AS((void)parse_only({"a=1,nope"}), memtune::ArgumentError);
  CHECK_THROWS_AS((void)parse_only({"a=1", "a=1"}), memtune::ArgumentError);
}

TEST_CASE("a problem larger than the GPU's memory is refused, naming both numbers") {
  // 2000M floats in and out: 15.6 GiB on a 5 GB Tesla K20c.
  const Run r = run_cli({"filter", "--n", "2000M", "--target", "k20", "-q"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("n=2097152000") != std::string::npos);
  CHECK(r.err.find("15.6 GiB") != std::string::npos);
  CHECK(r.err.find("Tesla K20c has 5.0 GiB") != std::string::npos);
  CHECK(r.err.find("k20.json") != std::string::npos);
}

TEST_CASE("--only: a pruned axis says why; values the constraints rule out name the constraints") {
  const Run pruned = run_cli({"filter", "--n", "1M", "--target", "h100-sxm", "--only", "bank_mode=4"});
  CHECK(pruned.code == kExitUsage);
  CHECK(pruned.err.find("--only bank_mode=4: axis 'bank_mode' was pruned for this target: ") != std::string::npos);
  CHECK(pruned.err.find("sm_90") != std::string::npos);
  const Run ruled_out = run_cli({"filter", "--n", "1M", "--target", "k20", "--only", "block_size=1024,packing=4,items=8"});
  CHECK(ruled_out.code == kExitUsage);
  CHECK_MESSAGE(ruled_out.err.find("no configuration with these values satisfies the space's constraints: ") !=
                    std::string::npos,
                ruled_out.err);
  CHECK(ruled_out.err.find("block_size") != std::string::npos);
}

TEST_CASE("--record and --save naming one file are refused before anything is written") {
  const TempDir dir;
  const std::string store = dir.file("profiles.json", R"({"schema_version": 1, "entries": []})");
  const std::string before = slurp(store);
  const Run r = run_cli(quick({"--record", store.c_str(), "--save", store.c_str()}));
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("both name one file") != std::string::npos);
  CHECK(slurp(store) == before);
  // Also through a link to it.
  fs::create_symlink(store, dir.path / "link.json");
  const std::string link = (dir.path / "link.json").string();
  CHECK(run_cli(quick({"--record", link.c_str(), "--save", store.c_str()})).code == kExitUsage);
  CHECK(slurp(store) == before);
}

TEST_CASE("--record onto a file that is not a recording, --save onto a store that does not parse: exit 1, untouched") {
  const TempDir dir;
  const std::string store = dir.file("profiles.json", R"({"schema_version": 1, "entries": []})");
  const Run record = run_cli(quick({"--record", store.c_str()}));
  CHECK(record.code == kExitError);
  CHECK(record.err.find("is not a memtune recording, so it is not replaced") != std::string::npos);
  CHECK(slurp(store) == R"({"schema_version": 1, "entries": []})");

  const std::string typed = dir.file("typed.json", "{\"schema_version\": 1,\n \"entries\": [{\"device\": 7}]}");
  const Run save = run_cli(quick({"--save", typed.c_str()}));
  CHECK(save.code == kExitError);
  CHECK(save.err.find(typed + ":2: field 'entries[0].device': expected an object") != std::string::npos);
  CHECK(save.out.empty()); // refused before the run
}

TEST_CASE("--save and --record onto a folder are refused without a lock file left behind") {
  const TempDir dir;
  const std::string folder = dir.path.string();
  const std::string slash = (dir.path / "newdir").string() + "/";
  for (const std::string& target : {folder, slash}) {
    const Run save = run_cli(quick({"--save", target.c_str()}));
    CHECK(save.code == kExitUsage);
    CHECK(save.err.find("--save " + target) != std::string::npos);
    const Run record = run_cli(quick({"--record", target.c_str()}));
    CHECK(record.code == kExitUsage);
  }
  CHECK_FALSE(fs::exists(folder + ".lock"));
  CHECK_FALSE(fs::exists(dir.path / "newdir"));
  CHECK_FALSE(fs::exists(dir.path / "newdir.lock"));
}

TEST_CASE("--save through a symbolic link updates the store it points to, and a recording is written atomically") {
  const TempDir dir;
  fs::create_directories(dir.path / "real");
  const fs::path store = dir.path / "real" / "profiles.json";
  fs::create_symlink(fs::path("real") / "profiles.json", dir.path / "link.json");
  const std::string link = (dir.path / "link.json").string(), rec = (dir.path / "rec.json").string();
  const Run r = run_cli(quick({"--save", link.c_str(), "--record", rec.c_str()}));
  CHECK(r.code == kExitOk);
  CHECK(fs::is_symlink(link));
  CHECK(memtune::ProfileStore(store).entries().size() == 1);
  CHECK(slurp(rec).find("\"trials\"") != std::string::npos);
  CHECK(run_cli(quick({"--record", rec.c_str()})).code == kExitOk); // a recording is replaced
}

TEST_CASE("a target file with a compute capability cuda_occupancy.h does not know: exit 1 naming file and field") {
  const TempDir dir;
  std::ifstream in(std::string(MEMTUNE_TEST_TARGETS_DIR) + "/k20.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["name"] = "future";
  j["cc_major"] = 12;
  j["cc_minor"] = 9;
  j["bank_widths_bytes"] = {4};
  const std::string file = dir.file("future.json", j.dump(2));
  const char* saved = std::getenv("MEMTUNE_TARGETS_DIR");
  const std::string restore = saved ? saved : "";
  ::setenv("MEMTUNE_TARGETS_DIR", dir.path.c_str(), 1);
  const Run r = run_cli({"filter", "--n", "1M", "--target", "future", "-q"});
  if (saved) ::setenv("MEMTUNE_TARGETS_DIR", restore.c_str(), 1);
  else ::unsetenv("MEMTUNE_TARGETS_DIR");
  CHECK(r.code == kExitError);
  CHECK(r.err.find(file + ":") != std::string::npos);
  CHECK(r.err.find("field 'cc_major'") != std::string::npos);
  CHECK(r.err.find("12.9 is unknown to this toolkit's cuda_occupancy.h") != std::string::npos);
}

TEST_CASE("--set: a signed value where the variable's declared range reaches below 0; sizes keep K, M, G") {
  memtune::KernelDescription d;
  d.name = "shifted";
  d.problem = {{"n", 1024, 1, INT64_MAX, "elements", true, {}}, {"shift", -5, -10, 10, "places", false, {}}};
  const auto parse = [&](const std::string& n, const std::string& shift) {
    return parse_problem(d, {{"n", n}, {"shift", shift}}, ProblemSyntax::kSet);
  };
  CHECK(parse("64K", "-5") == memtune::Problem{{"n", 65536}, {"shift", -5}});
  CHECK(parse("1M", "7") == memtune::Problem{{"n", 1 << 20}, {"shift", 7}});
  CHECK_THROWS_WITH_AS((void)parse("1K", "-1K"), doctest::Contains("problem parameter 'shift' = -1024 is out of range [-10, 10]"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)parse("1K", "-x"), "--set shift=-x: not an integer (examples: -5, 1000003, 64K, -16M)",
                       memtune::ArgumentError);
  // A size's range starts at 1: a sign is refused as such.
  CHECK_THROWS_WITH_AS((void)parse("-4", "0"), "--set n=-4: negative, but n is at least 1", memtune::ArgumentError);
  CHECK_THROWS_WITH_AS((void)parse("4X", "0"), "--set n=4X: not a size (examples: 1000003, 64K, 16M)",
                       memtune::ArgumentError);
}
