// Journals (--journal, --resume, a --record run's RECORD.journal): any bytes
// parse as a journal or give a JournalError naming the file, the line and the
// field; what parses is then resumed against a modeled run of the
// journal_space description, first with that run's header (the header
// check), then with the journal's own (so every candidate line is read too);
// and read as a recording, as `memtune merge` reads it (its own space).
#include "harness.hpp"

#include <memtune/tune/search_loop.hpp>

#include <memtune/description/description_json.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/tune/journal_recording.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/tune/tuner.hpp>

namespace {

struct Run {
  memtune::KernelDescription kernel = memtune::load_description(MEMTUNE_FUZZ_ASSETS "/descriptions/journal_space.json");
  memtune::Target target = memtune::load_targets().find("h100-sxm");
  memtune::TuneOptions options;
  memtune::TuningResult result = memtune::new_tuning_result(kernel, kernel.complete({}), target, options, false);
  nlohmann::json header = memtune::journal_header(result, options, options.measure);
};

} // namespace

MEMTUNE_FUZZ_TEXT(text) {
  static const Run run;
  const memtune::JournalContents contents = memtune::parse_journal(text, "fuzz.journal");
  try {
    (void)memtune::recording_from_journal(contents, "fuzz.journal");
  } catch (const memtune::JournalError&) {
  }
  try {
    (void)memtune::resume_from(contents, run.header, run.result.space, "fuzz.journal");
  } catch (const memtune::JournalError&) {
  }
  (void)memtune::resume_from(contents, contents.header, run.result.space, "fuzz.journal");
}
