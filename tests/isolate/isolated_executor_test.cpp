// The copies of a run on several GPUs (tune/src/isolated_executor.hpp): the
// first GPU measures the copy ceiling while the others already run
// candidates; the fractions of the ceiling, the watchdog's yardstick and the
// journal's setup line follow once it ends. On one GPU the copies still come
// before any candidate. The scripted worker (scripted_worker.cpp) plays the
// GPUs: "ceiling_ms" makes its ceiling slow, "ceiling_crash" makes it crash.
#include <memtune/output/printer.hpp>
#include <memtune/output/tuning_document.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/tune/tuner.hpp>

#include "scripted_run.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include <unistd.h>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

TuneOptions quick(const std::string& devices) {
  TuneOptions o = scripted_options();
  o.only = {{"behaviour", "0"}}; // two candidates, both fine
  if (!devices.empty()) o.devices = DeviceList::parse(devices);
  return o;
}

void check_fractions(const TuningResult& r) {
  REQUIRE(r.ceiling);
  for (const Evaluation& e : r.evaluations) {
    REQUIRE(e.ok());
    CHECK(e.fraction_of_ceiling == doctest::Approx(e.gbps / r.ceiling->gbps));
    CHECK(e.fraction_of_ceiling > 0);
  }
}

} // namespace

TEST_CASE("on two GPUs the second runs candidates while the first measures the copies; the fractions follow") {
  const fs::path journal = fs::temp_directory_path() / ("memtune-copies-" + std::to_string(::getpid()) + ".journal");
  fs::remove(journal);
  (void)tune(scripted(), {}, quick("")); // a warm compile cache
  TuneOptions o = quick("0,1");
  o.journal.file = journal;
  const Problem slow_copies{{"gpus", 2}, {"ceiling_ms", 1500}};
  const TuningResult r = tune(scripted(), slow_copies, o);
  CHECK(r.aborted.empty());
  REQUIRE(r.evaluations.size() == 2);
  for (const Evaluation& e : r.evaluations) CHECK(e.device == 1); // GPU 0 was measuring the whole time
  REQUIRE(r.setup_times);
  REQUIRE(r.setup_times->first_candidate_s);
  CHECK(*r.setup_times->first_candidate_s < 1.0);
  CHECK(r.setup_times->ceiling_s == doctest::Approx(1.53));
  CHECK(r.wall_seconds >= 1.5); // the run waits for the copies it reports
  CHECK(r.ceiling->gbps == 2000);
  CHECK(r.same_size_copy->gbps == 1500);
  check_fractions(r);

  // The setup line comes when the copies end, after the candidates; a resumed run reads it.
  const JournalContents lines = read_journal(journal);
  REQUIRE(lines.setup);
  CHECK(lines.setup->at("times").at("copy_ceiling_s") == doctest::Approx(1.53));
  const TuningResult resumed = tune(scripted(), slow_copies, o);
  CHECK(resumed.resumed == 2);
  CHECK(resumed.setup_times->ceiling_s == 0); // not measured again
  CHECK(resumed.wall_seconds < 1.5);
  check_fractions(resumed);
  fs::remove(journal);
}

TEST_CASE("on one GPU the copies come before the first candidate, as always") {
  (void)tune(scripted(), {}, quick(""));
  for (const char* devices : {"", "0"}) {
    CAPTURE(devices);
    const TuningResult r = tune(scripted(), {{"ceiling_ms", 800}}, quick(devices));
    REQUIRE(r.setup_times);
    REQUIRE(r.setup_times->first_candidate_s);
    CHECK(*r.setup_times->first_candidate_s >= 0.8);
    check_fractions(r);
  }
}

TEST_CASE("a first GPU that crashes measuring the copies stops the run, saying so; on one GPU, the set-up fails") {
  const TuningResult two = tune(scripted(), {{"gpus", 2}, {"ceiling_crash", 1}}, quick("0,1"));
  CAPTURE(two.aborted);
  CHECK(two.aborted.find("the copy ceiling could not be measured on GPU 0: the worker process was killed by signal 11") !=
        std::string::npos);
  CHECK(two.aborted.find("the copy crashed") != std::string::npos); // its last output
  CHECK_FALSE(two.ceiling);
  std::ostringstream printed; // the header without a ceiling
  output::print(printed, to_document(two), output::Format::table);
  CHECK(printed.str().find("copy ceiling:") == std::string::npos);

  const TuningResult one = tune(scripted(), {{"ceiling_crash", 1}}, quick(""));
  CHECK(one.aborted.find("the worker could not set the run up") != std::string::npos);
  CHECK(one.evaluations.empty());
}
