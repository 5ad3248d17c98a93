// The journal (tune/include/memtune/tune/journal.hpp): lines that round-trip, a
// header that refuses another run, damaged files named by line and field, a
// line cut off by a kill dropped; and through the search loop, an interrupted
// and resumed search (grid, random, bayes) that evaluates exactly what the
// uninterrupted one did, none of it twice.
#include <memtune/tune/search_loop.hpp>

#include "../support/asset_description.hpp"
#include "../support/catalogue_target.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

const KernelDescription& journal_space() { return asset_description("journal_space.json"); }

// The result of a grid run of journal_space before its first candidate, and
// its options: what a journal's header is made of.
struct RunStart {
  TuneOptions options;
  TuningResult result;
  [[nodiscard]] nlohmann::json header() const { return journal_header(result, options, options.measure); }
};

RunStart grid_run_start() {
  RunStart s;
  s.options.strategy = "grid";
  s.options.seed = 7;
  s.result = new_tuning_result(journal_space(), journal_space().complete({}), catalogue_target("h100-sxm"), s.options, true);
  return s;
}

fs::path fresh_file(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("memtune-journal-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove(p);
  return p;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; }

// The test evaluator: a time that depends on the configuration, some failures.
Evaluation answer(const search::Config& c) {
  Evaluation e;
  e.config = c;
  e.block_threads = 128;
  e.resources.registers = 16;
  const std::int64_t a = c.at("a"), b = c.at("b");
  if ((a * b) % 11 == 0) {
    e.status = Status::wrong_result;
    e.reason = "3 of the outputs wrong";
    return e;
  }
  Timing t;
  t.median_s = t.min_s = t.max_s = 1e-3 * (1.0 + static_cast<double>((a * 7 + b * 13) % 17) / 10.0 + 1e-7 * static_cast<double>(a));
  t.samples = 10;
  e.timing = t;
  e.gbps = 1.0 / t.median_s;
  return e;
}

struct LoopRun {
  TuningResult result;
  std::vector<search::Config> evaluated; // what the evaluator was asked, in order
};

LoopRun run_loop(const std::string& strategy, std::size_t budget, const std::optional<fs::path>& journal_file) {
  const Target& target = catalogue_target("h100-sxm");
  const KernelDescription& d = journal_space();
  const Problem problem = d.complete({});
  TuneOptions o;
  o.strategy = strategy;
  o.budget = budget;
  o.seed = 7;
  o.cache_folder = fs::temp_directory_path() / "memtune-journal-test-cache";
  o.compile_threads = 2;
  LoopRun run;
  run.result = new_tuning_result(d, problem, target, o, /*measured=*/true);
  CompileCache cache(*o.cache_folder);
  CompilePool pool(&cache, o.compile_threads);
  std::optional<Journal> journal;
  std::optional<ResumableRun> resumable;
  if (journal_file) {
    journal.emplace(*journal_file, journal_header(run.result, o, o.measure), run.result.space, false);
    resumable.emplace(ResumableRun{*journal, {}});
  }
  run_search_loop(d, problem, target, target.compute_capability(), o, pool, run.result,
                  [&](Pending& p) {
                    run.evaluated.push_back(p.config);
                    return answer(p.config);
                  },
                  {}, resumable ? &*resumable : nullptr);
  return run;
}

std::vector<search::Config> configs_of(const TuningResult& r) {
  std::vector<search::Config> out;
  for (const auto& e : r.evaluations) out.push_back(e.config);
  return out;
}

} // namespace

TEST_CASE("a journal line round-trips every fact of an evaluation but the recomputed ones") {
  const Target& target = catalogue_target("h100-sxm");
  const search::Space space = journal_space().space(journal_space().complete({}), target);
  Evaluation e = answer({{"a", 3}, {"b", 5}});
  e.compile_seconds = 0.25;
  e.compile_cached = true;
  e.dynamic_smem_bytes = 4096;
  e.driver_blocks_per_sm = 8;
  e.max_abs_error = 1.5e-7;
  e.fraction_of_ceiling = 0.9;
  e.resources.spill_store_bytes = 12;
  e.resources.max_threads_per_block = 128;
  e.grid_blocks = 64;
  const Evaluation back = evaluation_from_journal_line(space, journal_line(space, e, 4), "j", 5);
  CHECK(back.config == e.config);
  CHECK(back.status == e.status);
  CHECK(back.timing->median_s == e.timing->median_s); // exactly: the search replays it
  CHECK(back.gbps == e.gbps);
  CHECK(back.compile_seconds == 0.25);
  CHECK(back.compile_cached);
  CHECK(back.dynamic_smem_bytes == 4096);
  CHECK(back.driver_blocks_per_sm == 8);
  CHECK(back.max_abs_error == 1.5e-7);
  CHECK(back.fraction_of_ceiling == 0.9);
  CHECK(back.resources.spill_store_bytes == 12);
  CHECK(back.resources.max_threads_per_block == 128);
  CHECK(back.grid_blocks == 64);

  Evaluation wrong = answer({{"a", 1}, {"b", 1}});
  wrong.status = Status::wrong_result;
  wrong.timing.reset();
  wrong.max_abs_error = INFINITY; // written as null, read back as not a number
  const Evaluation w = evaluation_from_journal_line(space, nlohmann::json::parse(journal_line(space, wrong, 0).dump()), "j", 2);
  CHECK(w.status == Status::wrong_result);
  CHECK_FALSE(w.timing);
  CHECK(std::isnan(w.max_abs_error));
  CHECK(w.grid_blocks == 0); // none written: not known

  nlohmann::json zero_grid = journal_line(space, e, 4); // a grid of no blocks is damage
  zero_grid["grid_blocks"] = 0;
  CHECK_THROWS_AS((void)evaluation_from_journal_line(space, zero_grid, "j", 5), JournalError);
}

TEST_CASE("a damaged candidate line is an error naming the file, the line and the field") {
  const Target& target = catalogue_target("h100-sxm");
  const search::Space space = journal_space().space(journal_space().complete({}), target);
  nlohmann::json line = journal_line(space, answer({{"a", 2}, {"b", 3}}), 0);
  line["timing"]["median_s"] = "fast";
  try {
    (void)evaluation_from_journal_line(space, line, "run.journal", 9);
    FAIL("no error");
  } catch (const JournalError& e) {
    CHECK(e.file() == "run.journal");
    CHECK(e.line() == 9);
    CHECK(e.field() == "timing.median_s");
    CHECK(std::string(e.what()).find("run.journal:9: field 'timing.median_s': expected a number") == 0);
  }
  line = journal_line(space, answer({{"a", 2}, {"b", 3}}), 0);
  line["config"]["a"] = 9; // not a value of the axis
  CHECK_THROWS_AS((void)evaluation_from_journal_line(space, line, "run.journal", 3), JournalError);
  line = journal_line(space, answer({{"a", 2}, {"b", 3}}), 0);
  line["timing"]["samples"] = 1e300; // a float where an int is read: an error, never a cast
  CHECK_THROWS_WITH_AS((void)evaluation_from_journal_line(space, line, "run.journal", 3),
                       doctest::Contains("field 'timing.samples'"), JournalError);
  line = journal_line(space, answer({{"a", 2}, {"b", 3}}), 0);
  line["resources"]["max_threads_per_block"] = 0; // absent means no bound; 0 is not a bound
  CHECK_THROWS_WITH_AS((void)evaluation_from_journal_line(space, line, "run.journal", 3),
                       doctest::Contains("field 'resources.max_threads_per_block'"), JournalError);
  line = journal_line(space, answer({{"a", 2}, {"b", 3}}), 0);
  line["status"] = "timeout";
  CHECK_THROWS_WITH_AS((void)evaluation_from_journal_line(space, line, "run.journal", 3),
                       doctest::Contains("a failed candidate with a time"), JournalError);
}

TEST_CASE("resuming refuses another run's journal, naming the field that differs") {
  const fs::path file = fresh_file("other.journal");
  (void)run_loop("grid", 3, file);
  const Target& target = catalogue_target("h100-sxm");
  const KernelDescription& d = journal_space();
  RunStart start = grid_run_start();
  TuneOptions& o = start.options;
  const TuningResult& r = start.result;

  SUBCASE("another seed") {
    o.seed = 8;
    CHECK_THROWS_WITH_AS(Journal(file, journal_header(r, o, o.measure), r.space, false), doctest::Contains(":1: field 'seed'"),
                         JournalError);
  }
  SUBCASE("another GPU") {
    TuningResult other = new_tuning_result(d, d.complete({}), catalogue_target("a100"), o, true);
    CHECK_THROWS_WITH_AS(Journal(file, journal_header(other, o, o.measure), other.space, false),
                         doctest::Contains("field 'device'"), JournalError);
  }
  SUBCASE("another problem") {
    TuningResult other = new_tuning_result(d, d.complete({{"n", 8192}}), target, o, true);
    CHECK_THROWS_WITH_AS(Journal(file, journal_header(other, o, o.measure), other.space, false),
                         doctest::Contains("field 'problem'"), JournalError);
  }
  SUBCASE("another space") {
    TuneOptions only = o;
    only.only = {{"a", "2"}};
    TuningResult other = new_tuning_result(d, d.complete({}), target, only, true);
    CHECK_THROWS_WITH_AS(Journal(file, journal_header(other, only, only.measure), other.space, false),
                         doctest::Contains("field 'space_digest'"), JournalError);
  }
  SUBCASE("another description") {
    KernelDescription changed = d;
    changed.source.files[0].text += "\n// edited\n";
    TuningResult other = new_tuning_result(changed, d.complete({}), target, o, true);
    other.kernel_fingerprint = changed.fingerprint();
    CHECK_THROWS_WITH_AS(Journal(file, journal_header(other, o, o.measure), other.space, false),
                         doctest::Contains("field 'description'"), JournalError);
  }
  SUBCASE("another shard (a Slurm task resuming its neighbour's journal)") {
    o.shard = search::Shard::parse("2/3");
    CHECK_THROWS_WITH_AS(Journal(file, journal_header(r, o, o.measure), r.space, false),
                         doctest::Contains("field 'shard': this journal is of another shard (null; this run: \"2/3\")"),
                         JournalError);
  }
  SUBCASE("the same run resumes") {
    Journal j(file, journal_header(r, o, o.measure), r.space, false);
    CHECK(j.resumed() == 3);
  }
  fs::remove(file);
}

TEST_CASE("a journal that is not one, or damaged in the middle, is refused by line; a cut-off last line is dropped") {
  const fs::path file = fresh_file("damaged.journal");
  const RunStart start = grid_run_start();
  const TuningResult& r = start.result;

  write_text(file, "{\"profiles\": []}\n");
  CHECK_THROWS_WITH_AS(Journal(file, start.header(), r.space, false),
                       doctest::Contains(":1: field 'journal': not a memtune journal"), JournalError);

  fs::remove(file);
  (void)run_loop("grid", 4, file);
  std::string text = read_text(file);
  // Line 4 (the third candidate) loses its closing brace: damaged, not cut off.
  std::size_t pos = 0;
  for (int i = 0; i < 3; ++i) pos = text.find('\n', pos) + 1;
  const std::size_t end = text.find('\n', pos);
  write_text(file, text.substr(0, end - 1) + text.substr(end));
  CHECK_THROWS_WITH_AS(Journal(file, start.header(), r.space, false),
                       doctest::Contains(":4: not valid JSON (column "), JournalError);
  // A line nested deeper than any reader should recurse: refused, not a stack overflow.
  write_text(file, text.substr(0, end + 1) + std::string(100000, '[') + "\n");
  CHECK_THROWS_WITH_AS(Journal(file, start.header(), r.space, false),
                       doctest::Contains(":5: refused: nested deeper than 256 levels"), JournalError);

  // The last line cut in the middle, as a kill -9 during write() leaves it.
  write_text(file, text.substr(0, text.size() - 20));
  {
    Journal j(file, start.header(), r.space, false);
    CHECK(j.resumed() == 3);
    CHECK(j.describe().find("cut off") != std::string::npos);
  }
  CHECK(read_text(file).back() == '\n'); // truncated to its last complete line before anything is appended

  CHECK_THROWS_WITH_AS(Journal(fresh_file("missing.journal"), start.header(), r.space, /*must_exist=*/true),
                       doctest::Contains("no such journal"), JournalError);
  fs::remove(file);
}

TEST_CASE("one journal, one run: a second run on it is refused while the first holds it") {
  const fs::path file = fresh_file("locked.journal");
  const RunStart start = grid_run_start();
  Journal first(file, start.header(), start.result.space, false);
  CHECK_THROWS_WITH_AS(Journal(file, start.header(), start.result.space, false),
                       doctest::Contains("another memtune run is writing this journal"), JournalError);
  fs::remove(file);
}

TEST_CASE("an interrupted and resumed search evaluates what the uninterrupted one does, nothing twice") {
  for (const char* strategy : {"grid", "random", "bayes"}) {
    for (std::size_t cut : {std::size_t{1}, std::size_t{9}, std::size_t{23}}) {
      CAPTURE(strategy);
      CAPTURE(cut);
      const std::size_t budget = 40;
      const LoopRun whole = run_loop(strategy, budget, std::nullopt);
      const fs::path file = fresh_file(std::string(strategy) + ".journal");
      // Killed after `cut` candidates: the journal holds them (a budget stops there the same way).
      const LoopRun first = run_loop(strategy, cut, file);
      REQUIRE(first.evaluated.size() == cut);
      const LoopRun resumed = run_loop(strategy, budget, file);

      CHECK(configs_of(resumed.result) == configs_of(whole.result));
      // Nothing evaluated twice: the second run evaluated exactly the rest.
      std::vector<search::Config> both = first.evaluated;
      both.insert(both.end(), resumed.evaluated.begin(), resumed.evaluated.end());
      CHECK(both == whole.evaluated);
      CHECK(std::set<search::Config>(both.begin(), both.end()).size() == both.size());
      REQUIRE(resumed.result.best());
      CHECK(resumed.result.best()->config == whole.result.best()->config);
      for (std::size_t i = 0; i < whole.result.evaluations.size(); ++i) {
        CHECK(resumed.result.evaluations[i].status == whole.result.evaluations[i].status);
        if (whole.result.evaluations[i].timing)
          CHECK(resumed.result.evaluations[i].timing->median_s == whole.result.evaluations[i].timing->median_s);
      }
      fs::remove(file);
    }
  }
}

TEST_CASE("a modeled run resumes from its journal with the same predictions") {
  const KernelDescription& d = journal_space();
  const Target& target = catalogue_target("h100-sxm");
  TuneOptions o;
  o.cache_folder = fs::temp_directory_path() / "memtune-journal-test-cache";
  o.compile_threads = 2;
  const TuningResult whole = tune_modeled(d, d.complete({}), target, o);
  const fs::path file = fresh_file("modeled.journal");
  o.journal.file = file;
  o.budget = 10;
  const TuningResult first = tune_modeled(d, d.complete({}), target, o);
  CHECK(first.evaluations.size() == 10);
  o.budget = 0;
  const TuningResult resumed = tune_modeled(d, d.complete({}), target, o);
  CHECK(resumed.resumed == 10);
  CHECK(resumed.journal.find("resumed 10 candidates") != std::string::npos);
  REQUIRE(resumed.evaluations.size() == whole.evaluations.size());
  for (std::size_t i = 0; i < whole.evaluations.size(); ++i) {
    CHECK(resumed.evaluations[i].config == whole.evaluations[i].config);
    CHECK(resumed.evaluations[i].status == whole.evaluations[i].status);
    CHECK(resumed.evaluations[i].resources.registers == whole.evaluations[i].resources.registers);
    CHECK(resumed.evaluations[i].occupancy.warps_per_sm == whole.evaluations[i].occupancy.warps_per_sm);
  }
  fs::remove(file);
}

TEST_CASE("an empty journal text has no header to resume: an error, not an exception from JSON") {
  const JournalContents empty = parse_journal("", "empty.journal");
  const RunStart start = grid_run_start();
  CHECK_THROWS_WITH_AS((void)resume_from(empty, start.header(), start.result.space, "empty.journal"),
                       "empty.journal:1: no header (an empty journal)", JournalError);
}

TEST_CASE("a file without a newline that is no cut-off header is never truncated into a journal") {
  const RunStart s = grid_run_start();
  const fs::path notes = fresh_file("notes.txt");
  write_text(notes, "notes"); // printf notes > notes.txt
  CHECK_THROWS_WITH_AS(Journal(notes, s.header(), s.result.space, false),
                       doctest::Contains("is not a memtune journal, so it is not replaced (it holds text memtune did not write)"),
                       JournalError);
  CHECK(read_text(notes) == "notes");
  // A header cut off by a kill (a prefix of one, no newline) is started again.
  const fs::path cut = fresh_file("cut.journal");
  write_text(cut, s.header().dump().substr(0, 40));
  { const Journal j(cut, s.header(), s.result.space, false); }
  CHECK(read_text(cut) == s.header().dump() + "\n");
  // A FIFO is refused, not opened (opening it would block).
  const fs::path fifo = fresh_file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK_THROWS_WITH_AS(Journal(fifo, s.header(), s.result.space, false), doctest::Contains("is not a regular file"),
                       JournalError);
  fs::remove(notes);
  fs::remove(cut);
  fs::remove(fifo);
}
