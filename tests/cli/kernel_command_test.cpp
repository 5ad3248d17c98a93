// The tuning commands' options (cli/src/kernel_command.cpp): --objective and
// --energy checked before anything runs, refused for a modeled target (exit 2),
// without NVML refused with its reason (exit 4); a description's objective;
// --format csv --table.
#include "app.hpp"
#include "run_cli.hpp"

#include <memtune/cuda/nvml_api.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace memtune::cli;
using Run = memtune::testing::CliRun;
using memtune::testing::run_cli;

TEST_CASE("--objective: an unknown one is a usage error; energy on a modeled target is refused, naming the option") {
  Run r = run_cli({"filter", "--objective", "watts"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--objective") != std::string::npos);
  r = run_cli({"filter", "--n", "1M", "--target", "k20", "--objective", "energy", "-q"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--objective energy") != std::string::npos);
  CHECK(r.err.find("never modeled") != std::string::npos);
  r = run_cli({"filter", "--n", "1M", "--target", "k20", "--energy", "-q"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--energy") != std::string::npos);
  r = run_cli({"filter", "--energy-repeats", "1"});
  CHECK(r.code == kExitUsage);
  const Run help = run_cli({"filter", "--help"});
  CHECK(help.out.find("--objective") != std::string::npos);
  CHECK(help.out.find("edp") != std::string::npos);
}

TEST_CASE("--objective energy without NVML exits 4 with NVML's reason, before anything runs") {
  try {
    (void)memtune::nvml::NvmlLibrary::open();
    MESSAGE("NVML is present: the no-NVML path is not exercised here");
    return;
  } catch (const memtune::nvml::NvmlUnavailable&) {
  }
  const Run r = run_cli({"filter", "--n", "1M", "--objective", "energy", "-q"});
  CHECK(r.code == kExitEnergyRefused);
  CHECK(r.err.find("--objective energy: energy cannot be measured on this machine: NVML") != std::string::npos);
}

TEST_CASE("a description's \"objective\" is the run's unless --objective says otherwise") {
  namespace fs = std::filesystem;
  const fs::path assets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";
  const fs::path dir = fs::temp_directory_path() / ("memtune-objective-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(assets / "transpose.cu", dir / "transpose.cu", fs::copy_options::overwrite_existing);
  auto doc = nlohmann::ordered_json::parse(std::ifstream(assets / "transpose.json"));
  doc["objective"] = "energy";
  std::ofstream(dir / "transpose.json") << doc.dump(2);
  const std::string spec = (dir / "transpose.json").string();
  // Energy is never modeled: the description's objective reaches the check.
  Run r = run_cli({"tune", "--spec", spec.c_str(), "--target", "h100", "-q"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--objective energy") != std::string::npos);
  r = run_cli({"tune", "--spec", spec.c_str(), "--target", "h100", "--objective", "time", "-q"});
  CAPTURE(r.err);
  CHECK(r.code == kExitOk);
  fs::remove_all(dir);
}

TEST_CASE("--format csv --table KEY: one table as plain CSV; another format or an absent table is refused") {
  Run r = run_cli({"aos_soa", "--n", "1M", "--target", "h100", "-q", "--format", "csv", "--table", "ranked"});
  REQUIRE(r.code == kExitOk);
  CHECK(r.out.rfind("rank,config_text,time_s,", 0) == 0); // the header row first, no comment lines
  CHECK(r.out.find('#') == std::string::npos);
  CHECK(r.out.find("failures") == std::string::npos);
  r = run_cli({"aos_soa", "--n", "1M", "--target", "h100", "-q", "--format", "csv", "--table", "failures"});
  CHECK(r.code == kExitOk);
  CHECK(r.out == "status,config_text,reason\n");
  r = run_cli({"aos_soa", "--n", "1M", "--target", "h100", "-q", "--table", "ranked"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--table ranked: needs --format csv") != std::string::npos);
  // A table no run has is refused before the run: no candidate evaluated, no file written.
  const std::string record = (std::filesystem::temp_directory_path() / "memtune-table-nope.json").string();
  std::filesystem::remove(record);
  r = run_cli({"aos_soa", "--n", "1M", "--target", "h100", "-q", "--format", "csv", "--table", "nope", "--record", record.c_str()});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--table nope: is not a table this command prints (ranked, failures, occupancy, baselines)") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(record));
}
