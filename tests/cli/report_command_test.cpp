#include "run_cli.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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
  const std::string target = std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/h100_probed_target.json";
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
