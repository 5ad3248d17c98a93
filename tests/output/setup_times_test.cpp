// The set-up's times (output/setup_times.hpp): the slowest worker per part,
// the header's line, the JSON.
#include <memtune/output/setup_times.hpp>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace memtune;

TEST_CASE("setup times: each part is the slowest worker's, a part nobody did is left out") {
  SetupTimes t;
  t.workers = {{2, 0.5, 0.25, 0.125, 0.0}, {3, 0.375, 0.5, 0.0625, 1.5}};
  t.ceiling_s = 0.25;
  t.first_candidate_s = 2.5;
  CHECK(t.slowest(&WorkerSetupTimes::start_s) == 0.5);
  CHECK(t.slowest(&WorkerSetupTimes::inputs_s) == 0.5);
  CHECK(describe_setup_times(t) ==
        "set-up: the first candidate went to a GPU 2.50 s after the start; per worker (the slowest of 2): start 0.500 s, "
        "inputs 0.500 s, reference 0.125 s, expected values 1.500 s; copy ceiling 0.250 s on GPU 2");

  // A resumed run's copies come from its journal; a run whose every candidate failed to compile sent none.
  t.ceiling_s = 0;
  t.first_candidate_s.reset();
  t.workers[1].expected_s = 0;
  CHECK(describe_setup_times(t) == "set-up: no candidate went to a GPU; per worker (the slowest of 2): start 0.500 s, "
                                   "inputs 0.500 s, reference 0.125 s");

  const nlohmann::json j = setup_times_json(t);
  CHECK(j.at("first_candidate_s").is_null());
  CHECK(j.at("copy_ceiling_s") == 0.0);
  REQUIRE(j.at("workers").size() == 2);
  CHECK(j.at("workers").at(1).at("device") == 3);
  CHECK(j.at("workers").at(1).at("inputs_s") == 0.5);
}
