// An application that embeds memtune at start-up: it loads its profile entry
// for this GPU and problem (tuning and saving one when there is none), then
// runs the chosen filter on its own data with its own coefficients.
//
//   memtune_filter_app [n] [profile.json]
//
// MEMTUNE_CONFIG='{"block_size":128,...}' pins a configuration and
// MEMTUNE_NO_TUNE=1 never tunes (see memtune/session.hpp).
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/session.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/filter_kernel.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (1 << 22);
  const std::string profile = argc > 2 ? argv[2] : "filter_app.memtune.json";
  constexpr int kTaps = 21;

  // The application's own filter: a normalised Gaussian smoothing kernel.
  std::vector<float> taps(kTaps);
  double sum = 0;
  for (int k = 0; k < kTaps; ++k) sum += taps[k] = static_cast<float>(std::exp(-0.5 * std::pow((k - kTaps / 2) / 3.0, 2)));
  for (float& c : taps) c = static_cast<float>(c / sum);
  // ... and its own signal: a noisy sine.
  std::vector<float> signal(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    signal[i] = static_cast<float>(std::sin(i * 0.001) + 0.1 * std::sin(i * 1.7));

  try {
    memtune::Session session; // the local GPU
    memtune::ProfileStore store(profile);
    memtune::TuneOptions options;
    options.strategy = "random"; // a start-up budget: 40 candidates, not the whole grid
    options.budget = 40;
    memtune::Choice choice =
        session.tune_or_load(memtune::templates::filter_description(), {{"n", n}, {"taps", kTaps}}, store, options);
    std::cout << "configuration (" << choice.origin << "): "
              << memtune::templates::filter_description()
                     .space({{"n", n}, {"taps", kTaps}}, session.target())
                     .format(choice.config)
              << "\nwhy: " << choice.rationale << "\n";

    memtune::templates::FilterKernel fir(std::move(choice), taps);
    memtune::cuda::DeviceBuffer in(signal.size() * sizeof(float)), out(signal.size() * sizeof(float));
    memtune::cuda::Stream stream;
    in.upload(signal.data(), signal.size() * sizeof(float));
    fir.launch(stream.get(), in.get(), out.get(), n);
    stream.synchronize();
    std::vector<float> smoothed(signal.size());
    out.download(smoothed.data(), smoothed.size() * sizeof(float));

    // Spot-check against a direct evaluation.
    double worst = 0;
    for (std::int64_t i : {std::int64_t{0}, n / 2, n - 1}) {
      double expect = 0;
      for (int k = 0; k < kTaps; ++k) {
        const std::int64_t j = i - kTaps / 2 + k;
        if (j >= 0 && j < n) expect += static_cast<double>(taps[k]) * signal[j];
      }
      worst = std::max(worst, std::fabs(expect - smoothed[i]));
    }
    std::cout << "filtered " << n << " samples; spot-check error " << worst << "\n";
    return worst < 1e-4 ? 0 : 1;
  } catch (const memtune::DeviceRequired& e) {
    std::cerr << "filter_app: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "filter_app: " << e.what() << "\n";
    return 1;
  }
}
