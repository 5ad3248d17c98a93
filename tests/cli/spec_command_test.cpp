// `memtune tune --spec`: a user's kernel, written as a user would, end to end
// through the CLI without a GPU (modeled for a catalogue GPU: compiled for
// registers, occupancy and its limiter, time not modeled).
#include "app.hpp"
#include "run_cli.hpp"

#include <memtune/cuda/driver_api.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <vector>

#include <unistd.h>

using namespace memtune::cli;

namespace {

const std::string kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

using Run = memtune::testing::CliRun;

Run run_cli(const std::vector<std::string>& args) { return memtune::testing::run_cli_args(args); }

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
  const auto best = r.out.find("best: ");
  REQUIRE(best != std::string::npos);
  const std::string best_line = r.out.substr(best, r.out.find('\n', best) - best);
  CHECK(best_line.find("PAD=1") != std::string::npos);
  CHECK(r.out.find("limited by") != std::string::npos);
  CHECK(r.out.find("DRAM-bound") != std::string::npos);
}

TEST_CASE("tune takes the description without --spec too; without either it says which is missing") {
  const Run plain = run_cli({"tune", kAssets + "/saxpy.json", "--target", "h100", "--cache-dir", cache_dir(), "-q"});
  CAPTURE(plain.err);
  CHECK(plain.code == kExitOk);
  CHECK(plain.out.find("16 configurations compiled") != std::string::npos);
  const Run none = run_cli({"tune", "--target", "h100"});
  CHECK(none.code == kExitUsage);
  CHECK(none.err.find("spec") != std::string::npos);
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

namespace {

// The transpose asset with `edit` applied, written next to a copy of its source.
std::string edited_transpose(const std::string& name, const std::function<void(nlohmann::ordered_json&)>& edit) {
  const auto dir = std::filesystem::temp_directory_path() / ("memtune-spec-edit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kAssets + "/transpose.cu", dir / "transpose.cu",
                             std::filesystem::copy_options::overwrite_existing);
  std::ifstream in(kAssets + "/transpose.json");
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(in);
  edit(j);
  const std::string file = (dir / name).string();
  std::ofstream(file) << j.dump(2);
  return file;
}

} // namespace

TEST_CASE("tune --spec: scalars fit their C type, buffer sizes neither wrap nor go negative, before anything runs") {
  // rows is an `int` scalar: 3G does not fit.
  Run r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--set", "rows=3G", "-q"});
  CHECK(r.code == kExitError);
  CHECK(r.err.find("transpose.json: field 'arguments[2]': arguments[2].value (int32 rows) is 3221225472, which does "
                   "not fit in int32 (-2147483648 to 2147483647)") != std::string::npos);
  // 2^60 doubles: 2^63 bytes, which a 64-bit size does not hold (it wrapped to 0 and passed the memory check).
  const std::string huge = edited_transpose("huge.json", [](auto& j) {
    j["arguments"][1] = {{"name", "in"}, {"buffer", "double"}, {"count", "1G * 1G"}, {"role", "in"}};
  });
  r = run_cli({"tune", "--spec", huge, "--target", "h100", "-q"});
  CHECK(r.code == kExitError);
  CHECK(r.err.find("huge.json: field 'arguments[1]': arguments[1].count (in) = 1152921504606846976 elements of double: "
                   "more bytes than 64-bit sizes hold") != std::string::npos);
  const std::string negative = edited_transpose("negative.json", [](auto& j) { j["arguments"][1]["count"] = "rows - 2 * rows"; });
  r = run_cli({"tune", "--spec", negative, "--target", "h100", "-q"});
  CHECK(r.code == kExitError);
  CHECK(r.err.find("negative.json: field 'bytes_moved'") != std::string::npos); // validation computes it first
  CHECK(r.err.find("arguments[1].count (in) = -1024: a buffer has at least 0 elements") != std::string::npos);
  const std::string mod_zero = edited_transpose("mod_zero.json", [](auto& j) { j["arguments"][3]["value"] = "cols % 0"; });
  r = run_cli({"tune", "--spec", mod_zero, "--target", "h100", "-q"});
  CHECK(r.code == kExitError);
  CHECK(r.err.find("mod_zero.json: field 'arguments[3]': arguments[3].value (int32 cols) = (cols % 0): expression "
                   "(cols % 0): division by zero") != std::string::npos);
}

TEST_CASE("tune --spec: a constraint dividing by zero names the file and the field") {
  const std::string file = edited_transpose("div.json", [](auto& j) { j["constraints"][1] = "rows % (TILE - TILE) == 0"; });
  const Run r = run_cli({"tune", "--spec", file, "--target", "h100", "--cache-dir", cache_dir(), "-q"});
  CHECK(r.code == kExitError);
  CHECK(r.err.find("div.json: field 'constraints[1]': expression (1024 % (TILE - TILE)): division by zero") !=
        std::string::npos);
}

TEST_CASE("tune --spec --shard: an empty shard is a valid, empty result; an empty --shard is refused") {
  const Run r = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--shard", "7/4294967295",
                         "--cache-dir", cache_dir()});
  CAPTURE(r.err);
  CHECK(r.code == kExitOk);
  CHECK(r.out.find("this shard holds no valid configuration of the space") != std::string::npos);
  const Run empty = run_cli({"tune", "--spec", kAssets + "/transpose.json", "--target", "h100", "--shard", ""});
  CHECK(empty.code == kExitUsage);
  CHECK(empty.err.find("--shard") != std::string::npos);
}

