#include <memtune/cuda/error.hpp>
#include <memtune/measure/measure.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace memtune {
namespace {

constexpr int kBatch = 10; // samples enqueued before one synchronisation

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// Waits for an event, polling, but no longer than the timeout.
void wait_or_timeout(const cuda::Event& event, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!event.done()) {
    if (std::chrono::steady_clock::now() > deadline)
      throw Timeout("a launch did not finish within " + std::to_string(timeout_s) + " s");
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

} // namespace

Timing summarize(std::vector<double> samples_s, bool cold) {
  Timing t;
  t.cold = cold;
  t.samples = static_cast<int>(samples_s.size());
  if (samples_s.empty()) return t;
  std::sort(samples_s.begin(), samples_s.end());
  t.median_s = quantile(samples_s, 0.5);
  t.min_s = samples_s.front();
  t.max_s = samples_s.back();
  t.spread = t.median_s > 0 ? (quantile(samples_s, 0.75) - quantile(samples_s, 0.25)) / t.median_s : 0.0;
  return t;
}

Timer::Timer(std::size_t l2_bytes, MeasureOptions options)
    : options_(options) {
  if (options_.flush_l2) flush_.emplace(l2_bytes, options_.flush);
  for (int i = 0; i < kBatch; ++i) {
    starts_.emplace_back();
    stops_.emplace_back();
  }
}

void Timer::flush() {
  if (flush_) flush_->enqueue(stream_.get());
}

Timing Timer::time(const std::function<void(CUstream)>& launch, const std::function<void(CUstream)>& before_sample) {
  const auto begin = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(); };

  for (int i = 0; i < options_.warmup; ++i) {
    if (before_sample) before_sample(stream_.get());
    flush();
    starts_[0].record(stream_.get());
    launch(stream_.get());
    stops_[0].record(stream_.get());
    wait_or_timeout(stops_[0], options_.timeout_seconds);
  }

  std::vector<double> samples;
  while (true) {
    for (int i = 0; i < kBatch; ++i) {
      if (before_sample) before_sample(stream_.get());
      flush();
      starts_[i].record(stream_.get());
      launch(stream_.get());
      stops_[i].record(stream_.get());
    }
    wait_or_timeout(stops_[kBatch - 1], options_.timeout_seconds * kBatch);
    for (int i = 0; i < kBatch; ++i) samples.push_back(cuda::elapsed_seconds(starts_[i], stops_[i]));

    const auto n = static_cast<int>(samples.size());
    if (n < options_.min_samples) continue;
    const Timing t = summarize(samples, options_.flush_l2);
    if (t.spread <= options_.target_spread || n >= options_.max_samples || elapsed() >= options_.max_seconds) return t;
  }
}

} // namespace memtune
