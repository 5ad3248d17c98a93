// `memtune tune --spec`: a user's kernel, written as a user would, end to end
// through the CLI without a GPU (modeled for a catalogue GPU: compiled for
// registers, occupancy and its limiter, time not modeled).
#include "app.hpp"

#include <memtune/cuda/driver_api.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

using namespace memtune::cli;

namespace {

const std::string kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

struct Run {
  int code;
  std::string out, err;
};

Run run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "memtune");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

std::string cache_dir() {
  return (std::filesystem::temp_directory_path() / ("memtune-spec-test-cache-" + std::to_string(::getuid()))).string();
}

} // namespace

TEST_CASE("tune --spec predicts a user's kernel from its model section: ranking, occupancy and the rationale") {
  const Run r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--set", "rows=2K", "--set",
                         "cols=1000", "--cache-dir", cache_dir(), "-q"});
  CAPTURE(r.err);
  REQUIRE(r.code == kExitOk);
  CHECK(r.out.find("memtune transpose_test cols=1000 rows=2048 MODELED for") != std::string::npos);
  CHECK(r.out.find("predicted by the analytical model, not measured") != std::string::npos);
  CHECK(r.out.find("pred us") != std::string::npos);
  // The padding column is what the model's bank replay rewards: every ranked configuration has it.
  CHECK(r.out.find("best: TILE=32 ROWS=2 PAD=1") != std::string::npos);
  CHECK(r.out.find("limited by") != std::string::npos);
  CHECK(r.out.find("DRAM-bound") != std::string::npos);
}

TEST_CASE("tune --spec without a model section predicts registers and occupancy, and says time is not modeled") {
  const Run r = run_cli({"tune", "--spec", kAssets + "/saxpy.json", "--target", "h100", "--cache-dir", cache_dir(), "-q"});
  CAPTURE(r.err);
  REQUIRE(r.code == kExitOk);
  CHECK(r.out.find("time is not modeled: saxpy has no access pattern for the model (no \"model\" section)") !=
        std::string::npos);
  CHECK(r.out.find("16 configurations compiled") != std::string::npos);
  CHECK(r.out.find("BLOCK=128 ITEMS=1") != std::string::npos);
  CHECK(r.out.find("no ranking: the time of saxpy is not modeled") != std::string::npos);
  const Run bayes = run_cli({"tune", "--spec", kAssets + "/saxpy.json", "--target", "h100", "--strategy", "bayes",
                             "--budget", "3", "--cache-dir", cache_dir(), "-q"});
  CHECK(bayes.code == kExitOk);
  CHECK(bayes.out.find("strategy grid (bayes needs predicted times") != std::string::npos);
  CHECK(bayes.out.find("3 configurations compiled") != std::string::npos);
}

TEST_CASE("tune --spec: JSON, recording, --only and strategies") {
  const auto record = std::filesystem::temp_directory_path() / ("memtune-spec-record-" + std::to_string(::getpid()) + ".json");
  const Run r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "a100", "--only", "TILE=32", "--json",
                         "--record", record.string(), "--cache-dir", cache_dir(), "-q"});
  CAPTURE(r.err);
  REQUIRE(r.code == kExitOk);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j.at("template") == "transpose_test");
  CHECK(j.at("time_modeled") == true);
  CHECK(j.at("kernel_fingerprint").get<std::string>().size() == 32);
  REQUIRE(j.at("ranked").size() == 8); // TILE=32: ROWS 2..16 x PAD 0, 1, every one predicted
  for (const auto& e : j.at("ranked")) {
    CHECK(e.at("time_s").get<double>() > 0);
    CHECK(e.at("config").at("TILE") == 32);
    CHECK(e.at("registers").get<int>() > 0);
    CHECK(e.at("occupancy").at("warps_per_sm").get<int>() > 0);
    CHECK_FALSE(e.at("occupancy").at("limiter").get<std::string>().empty());
  }
  std::ifstream in(record);
  const nlohmann::json rec = nlohmann::json::parse(in);
  CHECK(rec.at("kernel_fingerprint") == j.at("kernel_fingerprint"));
  CHECK(rec.at("trials").size() == 8);
  std::filesystem::remove(record);

  const Run bayes = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--strategy", "bayes",
                             "--budget", "3", "--cache-dir", cache_dir(), "-q"});
  CHECK(bayes.code == kExitOk);
  CHECK(bayes.out.find("strategy bayes") != std::string::npos);
  CHECK(bayes.out.find("3 configurations compiled and predicted") != std::string::npos);
}

TEST_CASE("tune --spec: headers, include paths, choices and GPU-dependent parameters") {
  const Run r = run_cli({"tune", "--spec", kAssets + "/scale.json", "--target", "k20", "--set", "n=1M,op=scale",
                         "--cache-dir", cache_dir(), "-q"});
  CAPTURE(r.err);
  REQUIRE(r.code == kExitOk);
  CHECK(r.out.find("n=1048576 op=scale") != std::string::npos);
  CHECK(r.out.find("axis WAVES pruned: sm_35 runs one wave") != std::string::npos);
  // NVRTC 13 gives sm_75's registers and says why; an NVRTC 11.8 found on this machine compiles sm_35 itself.
  CHECK((r.out.find("registers come from sm_75") != std::string::npos ||
         r.out.find("NVRTC 11.8") != std::string::npos));
  CHECK(r.out.find("ACCUMULATE=false") != std::string::npos);
  CHECK(r.out.find("ACCUMULATE=true") == std::string::npos);
}

TEST_CASE("tune --spec: bad descriptions and bad --set are clear errors") {
  Run r = run_cli({"tune", "--spec", kAssets + "/syntax_error.json", "--target", "h100"});
  CHECK(r.code == kExitError); // a bad file
  CHECK(r.err.find("syntax_error.json:4: not valid JSON (column 30)") != std::string::npos);
  r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--set", "rowz=4"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--set rowz=4: transpose_test has no problem variable 'rowz' (known: rows, cols)") != std::string::npos);
  r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--set", "rows=lots"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--set rows=lots: not a size") != std::string::npos);
  r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--set", "rows"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--set rows: takes NAME=VALUE") != std::string::npos);
  r = run_cli({"tune", "--spec", kAssets + "/scale.json", "--target", "h100", "--set", "op=fma"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--set op=fma: expected one of scale, axpy") != std::string::npos);
  r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--set", "rows=0"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("out of range") != std::string::npos);
  r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--only", "TILE=48"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("not a value of TILE") != std::string::npos);
  r = run_cli({"tune", "--target", "h100"});
  CHECK(r.code == kExitUsage);
  r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--compare", "cublas"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("unknown baseline 'cublas' for transpose_test (it has none)") != std::string::npos);
  if (!memtune::cuda::driver_available()) {
    r = run_cli({"tune", "--spec", kAssets + "/transpose.json"});
    CHECK(r.code == kExitNoDevice);
    CHECK(r.err.find("measuring needs an NVIDIA GPU") != std::string::npos);
  }
}
