// tune() through worker processes, end to end on the CPU: the scripted
// worker (scripted_worker.cpp) plays the GPU, every other part is real (the
// description, NVRTC compiles, the search, the watchdog, the journal).
#include <memtune/tune/tuner.hpp>

#include "scripted_run.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <map>

using namespace memtune;
namespace fs = std::filesystem;

TEST_CASE("every way a candidate can fail costs that candidate only, and the run finishes") {
  const TuningResult r = tune(scripted(), {}, scripted_options());
  CHECK(r.aborted.empty());
  CHECK(r.isolation == "worker process (memtune_scripted_worker)");
  REQUIRE(r.evaluations.size() == 14);
  for (const Evaluation& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CAPTURE(e.reason);
    CHECK(std::string(to_string(e.status)) == behaviour_status(e.config.at("behaviour")));
    switch (e.config.at("behaviour")) {
    case 1: CHECK(e.reason.find("crashed its worker process") != std::string::npos);
            CHECK(e.reason.find("signal 11") != std::string::npos); break;
    case 2: CHECK(e.reason.find("still running after the limit of 1 s") != std::string::npos); break;
    case 3: CHECK(e.reason.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);
            CHECK(e.reason.find("a fresh worker process runs the next candidate") != std::string::npos); break;
    case 4: CHECK(e.reason.find("exited with status 5") != std::string::npos); break;
    default: break;
    }
  }
  // Two crashes, two hangs, two sticky errors, two exits: eight replacements.
  CHECK(r.worker_restarts == 8);
  REQUIRE(r.best());
  CHECK(r.best()->config.at("block") == 128);
  CHECK(r.ceiling->gbps == 2000);
}

TEST_CASE("a journaled measured run, interrupted, resumes to the same candidates without measuring one twice") {
  const fs::path journal = fs::temp_directory_path() / ("memtune-isolated-" + std::to_string(::getpid()) + ".journal");
  fs::remove(journal);
  TuneOptions o = scripted_options();
  o.strategy = "random";
  o.seed = 3;
  o.only = {{"behaviour", "0"}}; // no failures: a quick run
  const TuningResult whole = tune(scripted(), {}, o);
  o.journal.file = journal;
  o.budget = 1;
  const TuningResult first = tune(scripted(), {}, o);
  CHECK(first.evaluations.size() == 1);
  o.budget = 0;
  const TuningResult resumed = tune(scripted(), {}, o);
  CHECK(resumed.resumed == 1);
  REQUIRE(resumed.evaluations.size() == whole.evaluations.size());
  for (std::size_t i = 0; i < whole.evaluations.size(); ++i)
    CHECK(resumed.evaluations[i].config == whole.evaluations[i].config);
  CHECK(resumed.ceiling->gbps == first.ceiling->gbps); // the journaled ceiling, not a new one
  fs::remove(journal);
}

TEST_CASE("no GPU where the worker runs is DeviceRequired") {
  CHECK_THROWS_AS(tune(scripted(), {{"no_device", 1}}, scripted_options()), DeviceRequired);
}

TEST_CASE("a description the worker cannot rebuild runs in this process, and the result says why") {
  TuneOptions o = scripted_options();
  o.isolation.enabled = false;
  // In this process there is no GPU here: the in-process path needs the driver.
  CHECK_THROWS_WITH_AS(tune(scripted(), {}, o), doctest::Contains("measuring needs an NVIDIA GPU"), DeviceRequired);
}
