#pragma once
// A baseline: someone else's implementation of a template's operation (cuBLAS
// sgemv for matvec), timed in the same run, with the same Timer protocol, on
// the same buffers, and verified against the same reference as the candidates.
//
// A Workload makes its baselines (it owns the buffers they read and write);
// the tuner times them after the search (TuneOptions::compare) and reports
// them in TuningResult::baselines.
//
//   auto cublas = workload.make_baseline("cublas");
//   if (!cublas->available()) std::cout << cublas->unavailable_reason();
//   else timer.time([&](CUstream s) { cublas->launch(s); });
#include <cuda.h>

#include <string>

namespace memtune {

class Baseline {
public:
  virtual ~Baseline() = default;
  Baseline() = default;
  Baseline(const Baseline&) = delete;
  Baseline& operator=(const Baseline&) = delete;

  // What it is, for people: "cuBLAS sgemv".
  [[nodiscard]] virtual std::string description() const = 0;
  // False when it cannot run here (library missing, symbol missing, handle
  // creation failed); unavailable_reason() then says why, naming the library.
  [[nodiscard]] virtual bool available() const = 0;
  [[nodiscard]] virtual std::string unavailable_reason() const = 0;
  // Enqueues the operation on `stream`, writing the workload's outputs (which
  // Workload::verify then checks). Needs the tuning context current on the
  // calling thread. Throws std::runtime_error on a library error.
  virtual void launch(CUstream stream) = 0;
};

} // namespace memtune
