// tune() through worker processes, end to end on the CPU: the scripted
// worker (scripted_worker.cpp) plays the GPU, every other part is real (the
// description, NVRTC compiles, the search, the watchdog, the journal).
#include <memtune/output/printer.hpp>
#include <memtune/output/tuning_document.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/tune/tuner.hpp>

#include "scripted_run.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <sstream>

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
  REQUIRE(resumed.setup_times);
  CHECK(resumed.setup_times->ceiling_s == 0); // not measured again
  CHECK(first.setup_times->ceiling_s == 0.03);
  fs::remove(journal);
}

TEST_CASE("each part of the set-up is timed where it ran and reaches the result, its JSON, its header and the journal") {
  const fs::path journal = fs::temp_directory_path() / ("memtune-setup-times-" + std::to_string(::getpid()) + ".journal");
  fs::remove(journal);
  TuneOptions o = scripted_options();
  o.only = {{"behaviour", "0"}};
  o.journal.file = journal;
  const TuningResult r = tune(scripted(), {}, o);
  REQUIRE(r.setup_times);
  const SetupTimes& t = *r.setup_times;
  // The scripted worker's figures (scripted_worker.cpp), each part its own.
  REQUIRE(t.workers.size() == 1);
  CHECK(t.workers[0].device == 0);
  CHECK(t.workers[0].start_s == 0.01);
  CHECK(t.workers[0].inputs_s == 0.01);
  CHECK(t.workers[0].reference_s == 0.02);
  CHECK(t.workers[0].expected_s == 0);
  CHECK(t.ceiling_s == 0.03);
  CHECK(t.same_size_copy_s == 0.04); // 4K floats: a copy of the kernel's own size too
  REQUIRE(t.first_candidate_s);
  CHECK(*t.first_candidate_s > 0);
  CHECK(*t.first_candidate_s < r.wall_seconds);

  const nlohmann::json j = to_json(r);
  CHECK(j.at("setup").at("workers").at(0).at("reference_s") == 0.02);
  CHECK(j.at("setup").at("first_candidate_s") == *t.first_candidate_s);
  std::ostringstream printed;
  output::print(printed, to_document(r), output::Format::table);
  const std::string header = printed.str();
  CHECK(header.find("set-up: the first candidate went to a GPU") != std::string::npos);
  CHECK(header.find("; the worker: start 0.010 s, inputs 0.010 s, reference 0.020 s; copy ceiling 0.030 s and "
                    "same-size copy 0.040 s on GPU 0") != std::string::npos);

  const JournalContents journaled = read_journal(journal);
  REQUIRE(journaled.setup);
  CHECK(journaled.setup->at("times").at("copy_ceiling_s") == 0.03);
  CHECK(journaled.setup->at("times").at("workers").at(0).at("inputs_s") == 0.01);
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
