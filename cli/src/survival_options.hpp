#pragma once
// The options that let a tuning run survive its candidates and its own
// interruption: --no-isolation, --candidate-timeout, --journal, --resume
// (README "What happens to a bad candidate", "Resuming a run").
//
// A --record run keeps a journal next to the recording, RECORD.journal, and
// removes it once the recording is written: its presence means the run was
// interrupted, and the same command resumes it.
#include <memtune/tune/tuner.hpp>

#include <string>

namespace CLI {
class App;
}

namespace memtune::cli {

struct SurvivalOptions {
  bool no_isolation = false;
  double candidate_timeout = 0.0; // [seconds] 0: automatic
  std::string journal;
  std::string resume;
};

void add_survival_options(CLI::App& command, SurvivalOptions& o);

// The journal a --record run keeps while it runs: "RECORD.journal".
[[nodiscard]] std::string record_journal(const std::string& record);

// Fills options.isolation and options.journal. `record` is the --record file
// ("" when none). ArgumentError (exit 2) for --journal and --resume naming
// different files, or a negative or NaN timeout.
void apply_survival_options(TuneOptions& options, const SurvivalOptions& o,
                                                  const std::string& record);

// After the recording is written: removes the --record run's own journal
// when the run finished (an aborted run keeps it, to be resumed), never a
// journal the user named with --journal, whatever its name. `per_model`: one
// of several GPU models' runs (--mixed-devices), whose journal has the
// model in its name (tune_each_model).
void finish_record_journal(const TuneOptions& options, const SurvivalOptions& survival, const std::string& record,
                           const TuningResult& result, bool per_model = false);

} // namespace memtune::cli
