#include "../support/synthetic_result.hpp"

#include <memtune/report/inputs.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace memtune;
using namespace memtune::report;

namespace {
std::string data(const std::string& name) { return std::string(MEMTUNE_TEST_BENCH_DATA_DIR) + "/" + name; }

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("memtune-report-" + name);
  std::ofstream(p) << text;
  return p;
}
} // namespace

TEST_CASE("report inputs: a recording, a run's --json, a benchmark and a target file, each by its keys") {
  Inputs in;
  load_input(data("h100_filter_16M.json"), in);
  REQUIRE(in.runs.size() == 1);
  CHECK(in.runs[0].trials.size() == 288);
  CHECK(in.runs[0].complete());
  CHECK(in.runs[0].measured);
  CHECK(in.runs[0].device_name() == "NVIDIA H100 80GB HBM3");
  load_input(data("targets/h100_probed_target.json"), in);
  REQUIRE(in.figures.size() == 1);
  CHECK(in.figures[0].copy_gbps);
  complete_from_catalogues(in);
  REQUIRE(in.runs[0].copy_ceiling_gbps);
  CHECK(*in.runs[0].copy_ceiling_gbps == doctest::Approx(*in.figures[0].copy_gbps));
  CHECK(in.runs[0].bytes_moved); // from the filter template
  CHECK(in.runs[0].peak_gbps);

  const Run run = run_from_json(to_json(testing::synthetic_result()), "run.json");
  CHECK(run.trials.size() == 3);
  CHECK(run.strategy == "grid");
  CHECK(run.copy_ceiling_gbps == doctest::Approx(2800.0));
  CHECK(run.order_known);

  // A --json of a run written before runs kept their trials: ranked + failures.
  nlohmann::json old = to_json(testing::synthetic_result());
  old.erase("trials");
  const Run partial = run_from_json(old, "old.json");
  CHECK(partial.trials.size() == 3);
  CHECK_FALSE(partial.order_known);
  CHECK_FALSE(partial.notes.empty());

  const auto bench = write_temp("bench.json", R"({"schema_version": 1, "tool": "memtune_search_bench 0.1.0",
    "results": [{"recording": "x/h100_filter_16M.json", "strategy": "random", "configs": 288, "optimum_s": 4.9e-05,
                 "evaluations_to_within_5pct": {"median": 7.0},
                 "best_so_far": {"median": [3.0, 1.5, null], "q1": [2.0, 1.2, 1.0], "q3": [4.0, 2.0, 1.1]},
                 "a_key_from_a_later_format": true}]})");
  load_input(bench, in);
  REQUIRE(in.curves.size() == 1);
  CHECK(in.curves[0].median.size() == 3);
  CHECK(std::isnan(in.curves[0].median[2]));
  CHECK(in.curves[0].to5_median == doctest::Approx(7.0));
  std::filesystem::remove(bench);
}

TEST_CASE("report inputs: broken files are errors that name the file (and the line)") {
  Inputs in;
  const auto bad = write_temp("bad.json", "{\n  \"trials\": [\n  oops\n]}");
  CHECK_THROWS_WITH_AS(load_input(bad, in), doctest::Contains((bad.string() + ":3: not valid JSON").c_str()), std::runtime_error);
  const auto other = write_temp("other.json", R"({"hello": 1})");
  CHECK_THROWS_WITH_AS(load_input(other, in), doctest::Contains("not a memtune run (--json), recording"), std::runtime_error);
  const auto wrong = write_temp("wrong.json", R"({"schema_version": 1, "template": "t", "space": {"axes": []},
    "trials": [{"config": {}, "status": "ok"}]})");
  CHECK_THROWS_WITH_AS(load_input(wrong, in), doctest::Contains((wrong.string() + ":2: field 'trials[0].time_s'").c_str()),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(load_input("/nonexistent/x.json", in), doctest::Contains("/nonexistent/x.json: cannot open"),
                       std::runtime_error);
  for (const auto& p : {bad, other, wrong}) std::filesystem::remove(p);
}
