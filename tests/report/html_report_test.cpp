#include "../support/synthetic_result.hpp"

#include <memtune/report/html_report.hpp>

#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace memtune;
using namespace memtune::report;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::vector<std::filesystem::path> recordings() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(MEMTUNE_TEST_BENCH_DATA_DIR)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const auto j = nlohmann::json::parse(in);
    if (j.contains("trials")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("report: every recording in bench/data becomes a self-contained page with a plot in every figure") {
  const auto files = recordings();
  CHECK(files.size() >= 10);
  for (const auto& f : files) {
    CAPTURE(f);
    Inputs in;
    load_input(f, in);
    complete_from_catalogues(in);
    const std::string html = render_html(in, {});
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("http://") == std::string::npos);
    CHECK(html.find("https://") == std::string::npos);
    CHECK(html.find(" src=") == std::string::npos);
    CHECK(count(html, "<figure>") == count(html, "<svg class=\"plot\""));
    CHECK(count(html, "<figure>") >= 2); // at least the trajectory and the axis effects
    CHECK(html.find("Search trajectory") != std::string::npos);
    CHECK(html.find("Effect of each axis") != std::string::npos);
    CHECK(html.find("table class=\"sortable ranked\"") != std::string::npos);
  }
}

TEST_CASE("report: measured next to modeled adds the scatter with Spearman; failures are listed with reasons") {
  Inputs in;
  in.runs.push_back(run_from_json(to_json(testing::synthetic_result()), "measured.json"));
  TuningResult modeled = testing::synthetic_result();
  modeled.measured = false;
  modeled.target_name = "h100-sxm";
  for (auto& e : modeled.evaluations)
    if (e.timing) e.timing->median_s *= 1.1;
  in.runs.push_back(run_from_json(to_json(modeled), "modeled.json"));
  const std::string html = render_html(in, {});
  CHECK(html.find("Model against measurement") != std::string::npos);
  CHECK(html.find("Spearman 1.000 over 2 configurations") != std::string::npos);
  CHECK(html.find("Failures by status") != std::string::npos);
  CHECK(html.find("error: too many resources, with a comma") != std::string::npos);
  CHECK(html.find("copy ceiling") != std::string::npos);
  ReportOptions o;
  o.heatmap_axes = {"block_size", "nope"};
  CHECK_THROWS_AS((void)render_html(in, o), std::invalid_argument);
  CHECK_THROWS_AS((void)render_html(Inputs{}, {}), std::invalid_argument);
}

TEST_CASE("report: written through the output-file policy, never over a file of another kind") {
  const auto dir = std::filesystem::temp_directory_path() / ("memtune-report-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto p = dir / "report.html";
  const std::string html = "<!DOCTYPE html>\n<html><head><title>memtune report: a</title></head></html>\n";
  memtune::io::write_file_atomically(p, html, memtune::io::OutputKind::html_report);
  memtune::io::write_file_atomically(p, html + "\n", memtune::io::OutputKind::html_report);
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  CHECK(s.str() == html + "\n");
  const auto store = dir / "store.json";
  std::ofstream(store) << R"({"schema_version": 1, "entries": []})";
  CHECK_THROWS_WITH_AS(memtune::io::write_file_atomically(store, html, memtune::io::OutputKind::html_report),
                       doctest::Contains("is not a memtune HTML report, so it is not replaced (it holds a profile store)"),
                       memtune::InputError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("report: a run with energy gets the time-against-energy scatter with its Pareto front") {
  TuningResult r = testing::synthetic_result();
  r.energy_measured = true;
  EnergyMeasurement m;
  m.joules_per_launch = 1.0e-3;
  r.evaluations[0].energy = m; // the slower one, more frugal: both on the front
  m.joules_per_launch = 1.2e-3;
  r.evaluations[1].energy = m;
  Inputs in;
  in.runs.push_back(run_from_json(to_json(r), "energy.json"));
  REQUIRE(in.runs[0].joules_per_launch.size() == in.runs[0].trials.size());
  const std::string html = render_html(in, {});
  CHECK(html.find("Time against energy") != std::string::npos);
  CHECK(html.find("2 configurations, 2 on the Pareto front") != std::string::npos);
  CHECK(html.find("Pareto front: block_size=128") != std::string::npos);
  // Without energy: no such figure.
  Inputs plain;
  plain.runs.push_back(run_from_json(to_json(testing::synthetic_result()), "plain.json"));
  CHECK(render_html(plain, {}).find("Time against energy") == std::string::npos);
}

TEST_CASE("report: one space on two GPUs draws a trajectory per GPU and their times against each other") {
  Inputs in;
  load_input(std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/catalogue/h100_filter_16M.json", in);
  load_input(std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/catalogue/h200_filter_16M.json", in);
  complete_from_catalogues(in);
  const std::string html = render_html(in, {});
  CHECK(count(html, "<h2>") == 1); // one space
  CHECK(html.find("<b>Search trajectory on NVIDIA H100 80GB HBM3</b>") != std::string::npos);
  CHECK(html.find("<b>Search trajectory on NVIDIA H200</b>") != std::string::npos);
  CHECK(count(html, "<b>The same configurations on two GPUs</b>") == 1);
  CHECK(html.find("NVIDIA H200 against NVIDIA H100 80GB HBM3") != std::string::npos);
  CHECK(html.find("us on NVIDIA H200") != std::string::npos);
  // One GPU: a single trajectory under the plain title, no GPU scatter.
  Inputs one;
  load_input(std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/catalogue/h100_filter_16M.json", one);
  const std::string single = render_html(one, {});
  CHECK(single.find("<b>Search trajectory</b>") != std::string::npos);
  CHECK(single.find("on two GPUs") == std::string::npos);
}

TEST_CASE("report: a run on several GPUs gets a GPU column and the trials each GPU measured") {
  Inputs in;
  load_input(std::string(MEMTUNE_TEST_ASSETS_DIR) + "/recordings/two_gpu_aos_soa.json", in);
  REQUIRE(in.runs.size() == 1);
  CHECK(in.runs[0].gpus() == std::vector<int>{0, 1});
  const std::string html = render_html(in, {});
  CHECK(html.find("2 GPUs: 0 (48 trials), 1 (47)") != std::string::npos);
  CHECK(html.find("<th>GPU</th>") != std::string::npos);
  CHECK(html.find("<h2>aos_soa fields=3 n=16777216 op=read</h2>") != std::string::npos); // a choice by its label, not op=0
  // Every trial on one GPU (a --devices 0 run): nothing to tell apart.
  Inputs single;
  load_input(std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/spec/h100-sxm_transpose.json", single);
  CHECK(single.runs[0].gpus() == std::vector<int>{0});
  CHECK(render_html(single, {}).find("<th>GPU</th>") == std::string::npos);
}

TEST_CASE("report: a modeled table says where configurations tie; a measured one has none to say") {
  TuningResult modeled = testing::synthetic_result();
  modeled.measured = false;
  modeled.target_name = "h100-sxm";
  int ok = 0;
  for (auto& e : modeled.evaluations)
    if (e.timing) {
      e.timing->median_s = 2e-5; // the same bound: the same predicted time
      ++ok;
    }
  REQUIRE(ok == 2);
  Inputs in;
  in.runs.push_back(run_from_json(to_json(modeled), "modeled.json"));
  const std::string html = render_html(in, {});
  CHECK(html.find("Ties: 2 configurations (ranks 1-2) tie at 20.00 us predicted (they differ in block_size, layout)") !=
        std::string::npos);
  Inputs measured;
  measured.runs.push_back(run_from_json(to_json(testing::synthetic_result()), "measured.json"));
  CHECK(render_html(measured, {}).find("Ties:") == std::string::npos);
}
