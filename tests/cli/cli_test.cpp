#include "app.hpp"
#include "run_cli.hpp"
#include "size_parse.hpp"

#include <memtune/cuda/driver_api.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include <unistd.h>

using namespace memtune::cli;
using Run = memtune::testing::CliRun;
using memtune::testing::run_cli;

TEST_CASE("sizes: plain, K/M/G suffixes, and rejects") {
  CHECK(parse_size("1000003") == 1000003);
  CHECK(parse_size("16M") == 16 << 20);
  CHECK(parse_size("64k") == 64 << 10);
  CHECK(parse_size("1G") == 1LL << 30);
  CHECK_FALSE(parse_size(""));
  CHECK_FALSE(parse_size("M"));
  CHECK_FALSE(parse_size("16MB"));
  CHECK_FALSE(parse_size("-5"));
  CHECK_FALSE(parse_size("99999999999999999999"));
}

TEST_CASE("help and version") {
  const Run help = run_cli({"--help"});
  CHECK(help.code == kExitOk);
  CHECK(help.out.find("filter") != std::string::npos);
  const Run version = run_cli({"--version"});
  CHECK(version.code == kExitOk);
  CHECK(version.out.find("memtune 0.") != std::string::npos);
  const Run filter_help = run_cli({"filter", "--help"});
  CHECK(filter_help.out.find("--taps") != std::string::npos);
  CHECK(filter_help.out.find("--save") != std::string::npos);
}

TEST_CASE("usage errors exit 2 with a message that names the problem") {
  Run r = run_cli({});
  CHECK(r.code == kExitUsage);
  r = run_cli({"nosuchtemplate"});
  CHECK(r.code == kExitUsage);
  r = run_cli({"filter", "--n", "lots"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--n 'lots': not a size") != std::string::npos);
  r = run_cli({"filter", "--taps", "0"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("'taps' = 0 is out of range") != std::string::npos);
  r = run_cli({"filter", "--bogus"});
  CHECK(r.code == kExitUsage);
  r = run_cli({"filter", "--target", "h100", "--json", "--format", "csv"}); // one of them would be ignored
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("excludes") != std::string::npos);
}

TEST_CASE("measuring without a GPU says so and exits 3") {
  if (memtune::cuda::driver_available()) {
    MESSAGE("a GPU is present: the no-GPU path is not exercised here");
    return;
  }
  const Run r = run_cli({"filter", "--n", "1M"});
  CHECK(r.code == kExitNoDevice);
  CHECK(r.err.find("needs an NVIDIA GPU") != std::string::npos);
  for (const char* local : {"LOCAL", "Local"}) { // "local" in any capitals, as every target name
    const Run capitals = run_cli({"filter", "--n", "1M", "--target", local});
    CHECK(capitals.code == kExitNoDevice);
    CHECK(capitals.err.find("needs an NVIDIA GPU") != std::string::npos);
  }
}

TEST_CASE("targets lists the catalogue, and an unknown target names the known ones") {
  const Run list = run_cli({"targets"});
  CHECK(list.code == kExitOk);
  CHECK(list.out.find("k20") != std::string::npos);
  CHECK(list.out.find("Tesla K20c") != std::string::npos);
  CHECK(list.out.find("h100-sxm") != std::string::npos);
  const Run unknown = run_cli({"filter", "--target", "gtx480"});
  CHECK(unknown.code == kExitUsage);
  CHECK(unknown.err.find("gtx480") != std::string::npos);
  CHECK(unknown.err.find("k20") != std::string::npos);
}

// The README's main command, end to end on a machine without a GPU, with a
// cold compile cache: the bound keeps it to a handful of NVRTC compiles.
TEST_CASE("memtune filter --n 16M --target k20: ranked table, best and rationale, cold, without a GPU") {
  const auto cache = std::filesystem::temp_directory_path() / ("memtune-k20-" + std::to_string(std::random_device{}()));
  const std::string dir = cache.string();
  const auto start = std::chrono::steady_clock::now();
  const Run r = run_cli({"filter", "--n", "16M", "--target", "k20", "-q", "--cache-dir", dir.c_str()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove_all(cache);
  MESSAGE("cold k20 filter run: " << seconds << " s");
  CHECK(r.code == kExitOk);
  CHECK(r.out.find("MODELED for Tesla K20c (sm_35, 13 SMs)") != std::string::npos);
  CHECK(r.out.find("rank  config") != std::string::npos);
  CHECK(r.out.find("\n10   ") != std::string::npos); // ten ranked rows
  CHECK(r.out.find("more not compiled") != std::string::npos);
  CHECK(r.out.find("best: ") != std::string::npos);
  CHECK(r.out.find("why:  ") != std::string::npos);
  CHECK(r.out.find("runner-ups:") != std::string::npos);
}

TEST_CASE("a modeled target runs without a GPU and says it is modeled") {
  const Run r = run_cli({"filter", "--n", "1M", "--target", "k20", "--strategy", "random", "--budget", "6", "-q"});
  CHECK(r.code == kExitOk);
  CHECK(r.out.find("MODELED for Tesla K20c") != std::string::npos);
  CHECK(r.out.find("registers from NVRTC ") != std::string::npos); // 13.x for sm_75, or a found 11.8 for sm_35
  CHECK(r.out.find(" for sm_") != std::string::npos);
  CHECK(r.out.find("best: ") != std::string::npos);
  CHECK(r.out.find("why:  ") != std::string::npos);
  CHECK(r.out.find("warps/SM") != std::string::npos);
}

TEST_CASE("--predict models a catalogue target (measured by default where its GPU is here); with local it is misuse") {
  const Run r = run_cli({"filter", "--n", "1M", "--target", "h100", "--predict", "--strategy", "random", "--budget", "3", "-q"});
  CAPTURE(r.err);
  CHECK(r.code == kExitOk);
  CHECK(r.out.find("MODELED for H100 SXM5") != std::string::npos);
  CHECK(r.out.find("predicted by the analytical model, not measured") != std::string::npos);
  const Run local = run_cli({"filter", "--n", "1M", "--predict", "-q"});
  CHECK(local.code == 2);
  CHECK(local.err.find("--predict: needs --target NAME") != std::string::npos);
}

TEST_CASE("--from: a target predicted from another GPU's recording says so; an unusable file exits 1, misuse 2") {
  const std::string h100 = std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/h100_filter_16M.json";
  Run r = run_cli({"filter", "--n", "16M", "--target", "h200", "--from", h100.c_str(), "--only",
                   "block_size=256,packing=1,items=4", "-q"});
  CHECK(r.code == kExitOk);
  CHECK(r.out.find("TRANSFERRED: the measured times of h100_filter_16M.json (recording): NVIDIA H100 80GB HBM3") !=
        std::string::npos);
  CHECK(r.out.find("us transferred, ") != std::string::npos);
  r = run_cli({"filter", "--n", "1M", "--target", "h200", "--from", h100.c_str(), "-q"});
  CHECK(r.code == kExitError); // a file memtune cannot use (io/errors.hpp)
  CHECK(r.err.find("recorded for n=16777216 taps=21, not for n=1048576 taps=21") != std::string::npos);
  // A recording whose problem is not integers (memtune import keeps Kernel Tuner's problem_size list): the field named.
  {
    auto j = nlohmann::json::parse(std::ifstream(h100));
    j["problem"] = {{"problem_size", {1024, 1024}}};
    const std::string listed = (std::filesystem::temp_directory_path() / "memtune-from-listed.json").string();
    std::ofstream(listed) << j.dump();
    r = run_cli({"filter", "--n", "16M", "--target", "h200", "--from", listed.c_str(), "-q"});
    CHECK(r.code == kExitError);
    CHECK(r.err.find("field 'problem.problem_size': expected an integer, got [1024,1024]") != std::string::npos);
    CHECK(r.err.find("json.exception") == std::string::npos);
    std::filesystem::remove(listed);
  }
  r = run_cli({"filter", "--n", "16M", "--from", h100.c_str(), "-q"}); // measured grid: nothing to transfer to
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--strategy bayes") != std::string::npos);
}

TEST_CASE("--from for a --spec kernel without a model section: the source's ranking at the bandwidth ratio") {
  // The example transpose without its model section: the same kernel (the
  // fingerprint leaves the model out), so the H100 recording is its.
  const std::filesystem::path examples = std::string(MEMTUNE_TEST_EXAMPLES_DIR) + "/kernels/transpose";
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / ("memtune-no-model-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::filesystem::copy_file(examples / "transpose.cu", folder / "transpose.cu", std::filesystem::copy_options::overwrite_existing);
  auto description = nlohmann::ordered_json::parse(std::ifstream(examples / "transpose.json"));
  REQUIRE(description.erase("model") == 1);
  std::ofstream(folder / "transpose.json") << description.dump(2);
  const std::string spec = (folder / "transpose.json").string();
  const std::string h100 = std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/spec/h100-sxm_transpose.json";
  const Run r = run_cli({"tune", "--spec", spec.c_str(), "--target", "h200", "--from", h100.c_str(), "--only", "TILE=32",
                         "--json", "-q"});
  REQUIRE(r.code == kExitOk);
  const auto out = nlohmann::json::parse(r.out);
  CHECK(out["transfer_scaling"].get<std::string>().find("all scaled by one ratio, the peak DRAM bandwidths'") !=
        std::string::npos);
  // The pick is the H100's fastest TILE=32 configuration.
  const auto recording = nlohmann::json::parse(std::ifstream(h100));
  nlohmann::json fastest;
  double fastest_s = 1e9;
  for (const auto& t : recording["trials"])
    if (t["status"] == "ok" && t["config"]["TILE"] == 32 && t["time_s"].get<double>() < fastest_s) {
      fastest_s = t["time_s"].get<double>();
      fastest = t["config"];
    }
  CHECK(out["best"]["config"] == fastest);
  // At the ratio of the catalogue's peak bandwidths (configs/targets: h100-sxm 3352, h200 4800 GB/s).
  CHECK(out["best"]["time_s"].get<double>() == doctest::Approx(fastest_s * 3352.0 / 4800.0).epsilon(0.01));
  std::filesystem::remove_all(folder);

  // With its model section, each time is scaled by the model's own ratio.
  const Run modeled = run_cli({"tune", "--spec", (examples / "transpose.json").string().c_str(), "--target", "h200",
                               "--from", h100.c_str(), "--only", "TILE=32", "--json", "-q"});
  REQUIRE(modeled.code == kExitOk);
  CHECK(nlohmann::json::parse(modeled.out)["transfer_scaling"].get<std::string>().find("peak DRAM") == std::string::npos);
}

TEST_CASE("--compare: an unknown baseline is a usage error that lists the known ones") {
  Run r = run_cli({"matvec", "--rows", "64", "--cols", "64", "--compare", "magma"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("unknown baseline 'magma' for matvec (known: cublas)") != std::string::npos);
  r = run_cli({"filter", "--compare", "cublas"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("it has none") != std::string::npos);
  const Run help = run_cli({"matvec", "--help"});
  CHECK(help.out.find("--compare") != std::string::npos);
  CHECK(help.out.find("known: cublas") != std::string::npos);
  CHECK(help.out.find("--layout") != std::string::npos);
}

TEST_CASE("matvec modeled for k20 runs without a GPU; the baseline says why it did not run") {
  const Run r = run_cli({"matvec", "--rows", "1000", "--cols", "777", "--layout", "row", "--target", "k20", "--strategy",
                         "random", "--budget", "4", "--compare", "cublas", "-q"});
  CHECK(r.code == kExitOk);
  CHECK(r.out.find("MODELED for Tesla K20c") != std::string::npos);
  CHECK(r.out.find("best: ") != std::string::npos);
  CHECK(r.out.find("cuBLAS sgemv") == std::string::npos); // not made: nothing was loaded on a modeled run
  CHECK(r.out.find("cublas: not run: baselines are timed on the local GPU") != std::string::npos);
  const Run j = run_cli({"matvec", "--rows", "1000", "--cols", "777", "--target", "k20", "--strategy", "random",
                         "--budget", "2", "--compare", "cublas", "--json", "-q"});
  CHECK(j.code == kExitOk);
  CHECK(j.out.find("\"baselines\"") != std::string::npos);
  CHECK(j.out.find("\"available\": false") != std::string::npos);
}

TEST_CASE("--only fixes axes: one configuration evaluated; unknown axes and values are usage errors") {
  const Run one = run_cli({"filter", "--n", "1M", "--target", "k20", "-q", "--only",
                           "block_size=256,packing=2,items=4,vec=2,align=1,bank_mode=8"});
  CHECK(one.code == kExitOk);
  CHECK(one.out.find("1 configurations compiled and predicted") != std::string::npos);
  CHECK(one.out.find("best: staging=smem block_size=256 packing=2 items=4 vec=2 align=1 tiles=1 min_warps=0 bank_mode=8") != std::string::npos);

  const Run axis = run_cli({"filter", "--n", "1M", "--target", "k20", "--only", "blocks=256"});
  CHECK(axis.code == kExitUsage);
  CHECK(axis.err.find("no axis 'blocks' (axes: staging, block_size") != std::string::npos);
  const Run value = run_cli({"filter", "--n", "1M", "--target", "k20", "--only", "block_size=100"});
  CHECK(value.code == kExitUsage);
  CHECK(value.err.find("not a value of block_size (values: 32, 64") != std::string::npos);
  const Run form = run_cli({"filter", "--n", "1M", "--target", "k20", "--only", "block_size"});
  CHECK(form.code == kExitUsage);
  CHECK(form.err.find("AXIS=VALUE") != std::string::npos);
}
