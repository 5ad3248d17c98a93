#include "run_cli.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <unistd.h>

using memtune::testing::run_cli;

TEST_CASE("memtune report: a recording to one HTML file; bad inputs are errors naming the file") {
  const auto out = std::filesystem::temp_directory_path() / "memtune-report-cli.html";
  const std::string rec = std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/h100_fdtd_512x512x256_r4.json";
  auto r = run_cli({"report", rec.c_str(), "-o", out.string().c_str()});
  CHECK(r.code == 0);
  CHECK(r.out.find("(1 run, 0 benchmark curves;") != std::string::npos);
  std::ifstream in(out);
  std::stringstream html;
  html << in.rdbuf();
  CHECK(html.str().find("fdtd nx=512 ny=512 nz=256 radius=4") != std::string::npos);
  CHECK(html.str().find("http") == std::string::npos);
  r = run_cli({"report", rec.c_str(), "-o", out.string().c_str(), "--axes", "bx,nope"});
  CHECK(r.code == memtune::cli::kExitUsage);
  CHECK(r.err.find("no axis 'nope'") != std::string::npos);
  for (const char* axes : {",", "bx", "bx,by,vx", ",by"}) {
    CAPTURE(axes);
    r = run_cli({"report", rec.c_str(), "--axes", axes, "--rows", "5", "-o", out.string().c_str()});
    CHECK(r.code == memtune::cli::kExitUsage);
    CHECK(r.err.find("--axes " + std::string(axes) + ": takes two axis names, X,Y") != std::string::npos);
  }
  const std::string target = std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/targets/h100_probed_target.json";
  r = run_cli({"report", target.c_str(), "-o", out.string().c_str()});
  CHECK(r.code == memtune::cli::kExitUsage);
  CHECK(r.err.find("nothing to report") != std::string::npos);
  std::filesystem::remove(out);
}

TEST_CASE("--report on a modeled run writes the report at the end; --format markdown prints the same run") {
  const auto out = std::filesystem::temp_directory_path() / "memtune-run-report.html";
  const auto r = run_cli({"filter", "--n", "64K", "--target", "h100-sxm", "--strategy", "random", "--budget", "8", "-q",
                          "--report", out.string().c_str(), "--format", "markdown"});
  CHECK(r.code == 0);
  CHECK(r.out.rfind("### memtune filter n=65536", 0) == 0);
  CHECK(r.out.find("| rank | config |") != std::string::npos);
  std::ifstream in(out);
  std::stringstream html;
  html << in.rdbuf();
  CHECK(html.str().find("modeled") != std::string::npos);
  CHECK(html.str().find("Search trajectory") != std::string::npos);
  std::filesystem::remove(out);
}

TEST_CASE("memtune report refuses what it cannot trust, naming the file, the line and the reason") {
  const auto dir = std::filesystem::temp_directory_path() / ("memtune-report-bad-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "r.html").string();
  std::ifstream in(std::string(MEMTUNE_TEST_ASSETS_DIR) + "/recordings/small_with_implication.json");
  std::stringstream good;
  good << in.rdbuf();
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good.str();
    text.replace(text.find(from), from.size(), to);
    const std::string file = (dir / "bad.json").string();
    std::ofstream(file) << text;
    return file;
  };
  for (const char* sm : {"4294967428", "-7", "\"many\""}) {
    CAPTURE(sm);
    const std::string file = with("\"sm_count\": 132", std::string("\"sm_count\": ") + sm);
    const auto r = run_cli({"report", file.c_str(), "-o", out.c_str()});
    CHECK(r.code == memtune::cli::kExitError);
    CHECK(r.err.find(file + ":3: field 'device.sm_count': expected an integer") != std::string::npos);
    CHECK(r.err.find("[json.exception") == std::string::npos);
  }
  for (const auto& [from, to, says] :
       {std::tuple<std::string, std::string, std::string>{"\"time_s\": 3e-05", "\"time_s\": 1e400", ":11: not valid JSON"},
        {"\"time_s\": 3e-05", "\"time_s\": ", ":11: not valid JSON (line 11"},
        {"\"tool\": \"memtune 0.1.0\"", "\"tool\": \"a\", \"tool\": \"b\"", ":1: field 'tool': the key \"tool\" appears twice"}}) {
    CAPTURE(to);
    const std::string file = with(from, to);
    const auto r = run_cli({"report", file.c_str(), "-o", out.c_str()});
    CHECK(r.code == memtune::cli::kExitError);
    CHECK(r.err.find(file + says) != std::string::npos);
    CHECK(r.err.find("[json.exception") == std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(out));
  const std::string rec = std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/h100_fdtd_512x512x256_r4.json";
  const auto r = run_cli({"report", rec.c_str(), "-o", out.c_str(), "--rows", "-1"});
  CHECK(r.code == memtune::cli::kExitUsage);
  CHECK(r.err.find("--rows") != std::string::npos);
  std::filesystem::remove_all(dir);
}
