#pragma once
// Timing of device work with CUDA events.
//
// Cold timing (default): before every timed sample the L2 is flushed (by
// reading a buffer of twice its size, l2_flush.hpp says why reading), so each
// sample reads its inputs from DRAM, as a kernel in a real pipeline usually
// does. Warm timing (--warm) skips the flush. Samples are taken in batches until the relative spread
// (IQR / median) is below the target, or the time cap is reached; the median
// is reported.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/event.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/measure/energy.hpp>
#include <memtune/measure/l2_flush.hpp>

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

namespace memtune {

struct MeasureOptions {
  bool flush_l2 = true;
  FlushKind flush = FlushKind::clean; // how, when flush_l2
  int warmup = 2;                  // untimed launches first
  int min_samples = 10;
  int max_samples = 200;
  double target_spread = 0.02;     // stop when IQR / median is below this
  double max_seconds = 0.25;       // [seconds] time cap per measurement, warm-up included
  double timeout_seconds = 2.0;    // [seconds] one launch longer than this is a timeout
  EnergyOptions energy;            // joules per launch after the times (energy.hpp), when enabled
};

struct Timing {
  double median_s = 0;   // [seconds]
  double min_s = 0;      // [seconds]
  double max_s = 0;      // [seconds]
  double spread = 0;     // IQR / median
  int samples = 0;
  bool cold = true;      // L2 flushed before each sample
};

// Summary statistics of a set of samples (sorted copy inside).
Timing summarize(std::vector<double> samples_s, bool cold);

class Timeout : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Timer {
public:
  // l2_bytes: the device's L2 size; the flush buffer is twice that. Needs a
  // current context.
  Timer(std::size_t l2_bytes, MeasureOptions options);

  // Times `launch` (which enqueues the work on the stream it is given).
  // `before_sample`, when given, is enqueued before every launch (warm-up
  // ones too) and before the L2 flush, outside the timed region: an inout
  // buffer's refill. Throws Timeout when one launch exceeds
  // options.timeout_seconds, and cuda::DriverError when a launch fails.
  Timing time(const std::function<void(CUstream)>& launch,
              const std::function<void(CUstream)>& before_sample = {});

  [[nodiscard]] CUstream stream() const { return stream_.get(); }
  [[nodiscard]] const MeasureOptions& options() const { return options_; }

private:
  void flush();
  MeasureOptions options_;
  cuda::Stream stream_;
  std::optional<L2Flush> flush_;
  std::vector<cuda::Event> starts_, stops_;
};

} // namespace memtune
