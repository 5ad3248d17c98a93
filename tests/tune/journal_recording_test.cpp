// A journal read as a recording (tune/include/memtune/tune/journal_recording.hpp):
// every candidate a trial, the setup's ceiling kept; a journal without its
// space, or with a space that is not the one its digest names, refused by line
// and field.
#include "../support/asset_description.hpp"
#include "../support/catalogue_target.hpp"

#include <memtune/tune/journal_recording.hpp>
#include <memtune/tune/tuner.hpp>

#include <memtune/tune/search_loop.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

fs::path fresh_file(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("memtune-journal-recording-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove(p);
  return p;
}

// A journal of the first `count` configurations of journal_space's grid: every
// fifth wrong, the others timed 1 ms + 0.1 ms per position.
TuningResult write_journal(const fs::path& file, std::size_t count) {
  const KernelDescription& d = asset_description("journal_space.json");
  TuneOptions o;
  o.strategy = "grid";
  TuningResult r = new_tuning_result(d, d.complete({}), catalogue_target("h100-sxm"), o, /*measured=*/true);
  Journal journal(file, journal_header(r, o, o.measure), r.space, false);
  journal.append_setup({{"ceiling", {{"gbps", 2900.0}}}});
  std::size_t i = 0;
  for (const search::Config& c : r.space.enumerate()) {
    if (i == count) break;
    Evaluation e;
    e.config = c;
    if (i % 5 == 4) {
      e.status = Status::wrong_result;
      e.reason = "2 outputs wrong";
    } else {
      e.timing = Timing{.median_s = 1e-3 + 1e-4 * static_cast<double>(i), .samples = 10};
      e.resources.registers = 32 + static_cast<int>(i);
    }
    journal.append(e);
    r.evaluations.push_back(e);
    ++i;
  }
  return r;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("a journal reads as the recording of its run: a trial per candidate with its resources, the ceiling, the bytes") {
  const fs::path file = fresh_file("run.journal");
  const TuningResult run = write_journal(file, 12);
  const search::Recording r = load_journal_as_recording(file);
  CHECK(r.template_name == run.template_name);
  CHECK(r.kernel_fingerprint == run.kernel_fingerprint);
  CHECK(r.mode == "measured");
  CHECK(r.space.to_json() == run.space.to_json());
  CHECK(r.annotations.at("copy_ceiling_gbps") == 2900.0);
  CHECK(r.annotations.at("bytes_moved") == run.bytes_moved);
  REQUIRE(r.trials.size() == 12);
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    CHECK(r.trials[i].config == run.evaluations[i].config);
    CHECK(r.trials[i].ok() == run.evaluations[i].ok());
    if (!r.trials[i].ok()) CHECK(r.trials[i].status == "wrong_result");
    // Its compiled resources where it compiled: a merged run's profile entry keeps them.
    if (run.evaluations[i].resources.registers > 0)
      CHECK(r.trial_annotations.at(i).at("resources").at("registers") == run.evaluations[i].resources.registers);
    else
      CHECK_FALSE(r.trial_annotations.at(i).contains("resources"));
  }
  CHECK(*r.best()->time_s == doctest::Approx(1e-3));
  // It is a recording like any other: it saves and loads.
  CHECK(search::Recording::from_json(r.to_json()).trials.size() == 12);
  fs::remove(file);
}

TEST_CASE("a journal without its space, or whose space is not its digest's, is refused by line and field") {
  const fs::path file = fresh_file("edited.journal");
  (void)write_journal(file, 3);
  const std::string text = read_text(file);
  const std::size_t end = text.find('\n');
  nlohmann::json header = nlohmann::json::parse(text.substr(0, end));

  nlohmann::json without = header;
  without.erase("space");
  std::ofstream(file, std::ios::trunc) << without.dump() << text.substr(end);
  CHECK_THROWS_WITH_AS((void)load_journal_as_recording(file), doctest::Contains(":1: field 'space'"), JournalError);
  CHECK_THROWS_WITH_AS((void)load_journal_as_recording(file), doctest::Contains("--record"), JournalError);

  nlohmann::json edited = header;
  edited["space"]["axes"][0]["values"].erase(0);
  std::ofstream(file, std::ios::trunc) << edited.dump() << text.substr(end);
  CHECK_THROWS_WITH_AS((void)load_journal_as_recording(file), doctest::Contains("space_digest"), JournalError);
  fs::remove(file);
}
