#include <memtune/isolate/launcher_setup.hpp>

#include <chrono>

namespace memtune::isolation {
namespace {

// [seconds] that `part` took.
template <class Part>
double timed(Part&& part) {
  const auto start = std::chrono::steady_clock::now();
  part();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

double prepare_inputs_timed(CandidateLauncher& launcher) {
  return timed([&] { launcher.prepare_inputs(); });
}

SetupDone run_setup(CandidateLauncher& launcher, const SetupRequest& request) {
  SetupDone done;
  for (std::size_t i = 0; i < request.references.size(); ++i) {
    ReferenceOutcome r;
    // The first reference's launch is the watchdog's yardstick.
    done.reference_seconds +=
        timed([&] { r = launcher.run_reference(request.references[i], request.time_reference && i == 0); });
    done.reference_error = r.error;
    if (i == 0) done.reference_time_s = r.time_s;
    done.context_lost = r.context_lost;
    if (r.context_lost || r.error) return done;
  }
  // prepare_expected times its own host work (a failure there returns 0: the
  // first candidate that needs the values meets it and reports it).
  if (request.expected_for) done.expected_seconds = launcher.prepare_expected(*request.expected_for);
  if (request.ceiling_bytes > 0)
    done.ceiling_seconds = timed([&] { done.ceiling = launcher.measure_ceiling(request.ceiling_bytes); });
  if (request.same_size_bytes > 0)
    done.same_size_copy_seconds = timed([&] { done.same_size_copy = launcher.measure_ceiling(request.same_size_bytes); });
  return done;
}

} // namespace memtune::isolation
