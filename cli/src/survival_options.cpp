#include "survival_options.hpp"

#include <memtune/io/errors.hpp>

#include <CLI/CLI.hpp>

#include <cmath>
#include <filesystem>

namespace memtune::cli {

void add_survival_options(CLI::App& sub, SurvivalOptions& o) {
  sub.add_flag("--no-isolation", o.no_isolation,
               "launch candidates in this process, not in a supervised worker (a crash or sticky CUDA error then "
               "ends the run, a hang cannot be stopped)");
  sub.add_option("--candidate-timeout", o.candidate_timeout,
                 "seconds one candidate may run before it is killed with its worker and marked timeout "
                 "(default: automatic, from the best time so far, the reference's and the copy ceiling's)");
  sub.add_option("--journal", o.journal,
                 "append every finished candidate to this journal; if it exists, resume the run it holds");
  sub.add_option("--resume", o.resume, "resume the interrupted run of this journal (which must exist)");
}

std::string record_journal(const std::string& record) { return record + ".journal"; }

void apply_survival_options(TuneOptions& t, const SurvivalOptions& o, const std::string& record) {
  if (!(o.candidate_timeout >= 0) || !std::isfinite(o.candidate_timeout))
    throw ArgumentError("--candidate-timeout " + std::to_string(o.candidate_timeout),
                        "must be a number of seconds > 0 (0: automatic)");
  t.isolation.enabled = !o.no_isolation;
  t.isolation.candidate_timeout_s = o.candidate_timeout;
  if (!o.resume.empty() && !o.journal.empty() && o.resume != o.journal)
    throw ArgumentError("--journal " + o.journal + " --resume " + o.resume, "they name two journals: give one");
  if (!o.resume.empty()) {
    t.journal.file = o.resume;
    t.journal.must_exist = true;
  } else if (!o.journal.empty()) {
    t.journal.file = o.journal;
  } else if (!record.empty()) {
    t.journal.file = record_journal(record);
  }
}

void finish_record_journal(const TuneOptions& t, const SurvivalOptions& survival, const std::string& record,
                           const TuningResult& result, bool per_model) {
  if (!survival.journal.empty()) return; // the user's own journal
  if (record.empty() || !t.journal.file || *t.journal.file != std::filesystem::path(record_journal(record))) return;
  if (!result.aborted.empty()) return; // unfinished: the same command resumes it
  std::error_code ec;
  std::filesystem::remove(per_model ? path_for_model(*t.journal.file, result.device) : *t.journal.file, ec);
}

} // namespace memtune::cli
