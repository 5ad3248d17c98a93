// --devices and --mixed-devices (cli/src/devices_option.hpp): bad lists and
// combinations exit 2 saying why; a host of two GPU models is refused, or,
// with --mixed-devices, tuned per model with one recording each. A scripted
// worker process plays the GPUs (tests/support/scripted_worker.cpp).
#include "cli/run_cli.hpp"

#include <memtune/measure/device.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace memtune;
using memtune::testing::run_cli;
namespace fs = std::filesystem;

namespace {

const char* const kScripted = MEMTUNE_TEST_ASSETS_DIR "/descriptions/scripted.json";

} // namespace

TEST_CASE("a bad --devices, or one that cannot go with the other options, exits 2 naming it") {
  const auto refused = [](std::vector<const char*> args, const std::string& why) {
    const auto run = run_cli(std::move(args));
    CAPTURE(run.err);
    CHECK(run.code == 2);
    CHECK(run.err.find(why) != std::string::npos);
  };
  refused({"filter", "--devices", "0,x"}, "--devices 0,x: 'x' in '0,x' is not a GPU ordinal");
  refused({"filter", "--devices", "1,1"}, "GPU 1 is listed twice");
  refused({"filter", "--devices", "all", "--no-isolation"}, "several GPUs need a worker process each");
  refused({"filter", "--devices", "0", "--device", "1"}, "give --device or --devices, not both");
  refused({"filter", "--mixed-devices"}, "--mixed-devices: needs --devices");
  refused({"filter", "--devices", "0", "--target", "h100"}, "--devices measures on this host's GPUs");
}

TEST_CASE("--devices on the CLI: a mixed host is refused; --mixed-devices records one ranking per model") {
  const fs::path dir = fs::temp_directory_path() / ("memtune-devices-cli-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("MEMTUNE_WORKER", MEMTUNE_TEST_SCRIPTED_WORKER, 1);
  const std::string cache = (dir / "cache").string(), record = (dir / "f.json").string();
  std::vector<const char*> args{"tune", "--spec", kScripted, "--set", "gpus=2", "--set", "mixed=1", "--only", "behaviour=0",
                                "--devices", "all", "--cache-dir", cache.c_str(), "-q"};

  const auto refused = run_cli(args);
  CAPTURE(refused.err);
  CHECK(refused.code == 2);
  CHECK(refused.err.find("the GPUs are of 2 models (0: H100 SXM5 80GB (sm_90, 132 SMs); 1: Scripted Other GPU") !=
        std::string::npos);

  args.insert(args.end(), {"--mixed-devices", "--record", record.c_str()});
  const auto each = run_cli(args);
  CAPTURE(each.err);
  CHECK(each.code == 0);
  CHECK(each.out.find("--mixed-devices: 2 GPU models, each tuned on its own GPUs") != std::string::npos);
  for (const DeviceFingerprint& model : {DeviceFingerprint{"H100 SXM5 80GB", 9, 0, 132},
                                         DeviceFingerprint{"Scripted Other GPU", 9, 0, 66}}) {
    const fs::path own = path_for_model(record, model);
    CAPTURE(own);
    REQUIRE(fs::exists(own));
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(own));
    CHECK(j.at("device").at("name") == model.name);
    CHECK(j.at("trials").size() == 2);
    CHECK_FALSE(fs::exists(path_for_model(record + ".journal", model))); // finished: its journal removed
  }
  CHECK_FALSE(fs::exists(record));

  // Two GPUs of one model: one table, a gpu column, the count per GPU.
  const auto two = run_cli({"tune", "--spec", kScripted, "--set", "gpus=2", "--only", "behaviour=0", "--devices", "0,1",
                            "--cache-dir", cache.c_str(), "-q"});
  CAPTURE(two.err);
  CHECK(two.code == 0);
  CHECK(two.out.find("measured on 2 GPUs, one worker each") != std::string::npos);
  CHECK(two.out.find(" gpu") != std::string::npos);
  CHECK(two.out.find("(measured on GPU ") != std::string::npos);
  ::unsetenv("MEMTUNE_WORKER");
  fs::remove_all(dir);
}
