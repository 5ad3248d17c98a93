#pragma once
// The progress line of a tuning run: a phase when the space is known, an
// update after every candidate, and a closing summary.
#include "progress.hpp"

#include <memtune/tune/tuner.hpp>

namespace memtune::cli {

// Sets options.on_start and options.on_evaluation to drive `line`; `line`
// must outlive the run.
void attach_progress(TuneOptions& options, ProgressLine& line);
// "288 evaluated, 0 failed, best 49.46 us, 1.2 s" (+ what the model's bound skipped).
std::string run_summary(const TuningResult& result);

} // namespace memtune::cli
