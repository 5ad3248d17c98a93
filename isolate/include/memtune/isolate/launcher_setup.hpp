#pragma once
// Internal to isolation: a run's set-up on one GPU, the same in a worker
// process and in this process (--no-isolation): the inputs, then the setup
// request of protocol.hpp (the reference, a callback's expected values, the
// copies), each part timed for SetupTimes (output/setup_times.hpp).
//
//   const double inputs_s = prepare_inputs_timed(launcher);
//   SetupDone done = run_setup(launcher, request);
#include <memtune/isolate/candidate_launcher.hpp>
#include <memtune/isolate/protocol.hpp>

namespace memtune::isolation {

// CandidateLauncher::prepare_inputs; returns the seconds it took. Throws as it.
double prepare_inputs_timed(CandidateLauncher& launcher);

// Runs `request` on `launcher`, timing each part. A reference that cannot
// run (reference_error) or leaves the context unusable (context_lost) ends
// it: the run stops there, so nothing else is measured. inputs_seconds is
// left 0 (the inputs are filled before: prepare_inputs_timed).
SetupDone run_setup(CandidateLauncher& launcher, const SetupRequest& request);

} // namespace memtune::isolation
