// An application that embeds memtune at start-up: a typed handle on the
// built-in filter finds its configuration for this GPU and problem in the
// profile (tuning within a budget and saving when there is none), then runs
// it on the application's own signal with its own coefficients.
//
//   memtune_filter_app [n] [profile.json]
//
// MEMTUNE_CONFIG='{"block_size":128}' pins a configuration (parameters left
// out take the default) and MEMTUNE_NO_TUNE=1 never tunes (tuned_kernel.hpp).
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include "../common/app_main.hpp"

#include <chrono>
#include <cmath>
#include <iostream>
#include <vector>

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int run(std::int64_t n, const std::string& profile) {
  constexpr int kTaps = 21;

  // The application's own filter: a normalised Gaussian smoothing kernel.
  std::vector<float> taps(kTaps);
  double sum = 0;
  for (int k = 0; k < kTaps; ++k) sum += taps[k] = static_cast<float>(std::exp(-0.5 * std::pow((k - kTaps / 2) / 3.0, 2)));
  for (float& c : taps) c = static_cast<float>(c / sum);
  // A size outside the filter's range is refused (naming n and the range)
  // before the signal is allocated.
  const memtune::Problem problem = memtune::templates::filter_description().complete({{"n", n}, {"taps", kTaps}});
  // ... and its own signal: a noisy sine.
  std::vector<float> signal(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    signal[i] = static_cast<float>(std::sin(i * 0.001) + 0.1 * std::sin(i * 1.7));

  memtune::Session session; // the local GPU
  memtune::ProfileStore store(profile);
  memtune::LauncherOptions options;
  options.tune.strategy = "random"; // a start-up budget: 40 candidates, not the whole grid
  options.tune.budget = 40;
  memtune::TunedKernel<const float*, float*> fir(session, memtune::templates::filter_description(), &store, options);
  fir.set_constant("memtune_filter_taps", taps);

  const memtune::Choice& choice = fir.choice(problem);
  std::cout << "configuration (" << choice.origin << "): " << choice.formatted << "\nwhy: " << choice.rationale
            << "\n";

  memtune::cuda::DeviceBuffer in(signal.size() * sizeof(float)), out(signal.size() * sizeof(float));
  memtune::cuda::Stream stream;
  in.upload(signal.data(), signal.size() * sizeof(float));
  const auto launch_start = std::chrono::steady_clock::now();
  fir(stream.get(), problem, reinterpret_cast<const float*>(in.get()), reinterpret_cast<float*>(out.get()));
  stream.synchronize();
  const double launch_ms = ms_since(launch_start);
  std::cout << "start-up: lookup " << choice.seconds.lookup * 1e3 << " ms, tuning " << choice.seconds.tuning * 1e3
            << " ms, module load " << choice.seconds.load * 1e3 << " ms, first launch + sync " << launch_ms << " ms\n";

  std::vector<float> smoothed(signal.size());
  out.download(smoothed.data(), smoothed.size() * sizeof(float));
  const std::vector<double> expect = memtune::templates::filter_reference(signal, taps);
  const double tolerance = memtune::templates::filter_tolerance(taps);
  double worst = 0;
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < expect.size(); ++i) {
    const double error = std::fabs(expect[i] - smoothed[i]);
    worst = std::max(worst, error);
    bad += error <= tolerance ? 0 : 1; // NaN counts as bad
  }
  std::cout << "filtered " << n << " samples; max error " << worst << " (tolerance " << tolerance << "), " << bad
            << " wrong\n";
  return bad == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  return examples::run_app("filter_app", [&] {
    return run(examples::count_argument(argc, argv, 1, 1 << 22, "n"), argc > 2 ? argv[2] : "filter_app.memtune.json");
  });
}
