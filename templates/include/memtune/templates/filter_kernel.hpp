#pragma once
// Launching a tuned filter on the application's own data.
//
//   memtune::Choice choice = session.tune_or_load(memtune::templates::filter_description(), {{"n", n}, {"taps", 21}}, store);
//   memtune::templates::FilterKernel fir(choice, my_taps);  // copies taps to constant memory
//   fir.launch(stream, d_in, d_out, n);
#include <memtune/session.hpp>

#include <span>
#include <vector>

namespace memtune::templates {

class FilterKernel {
public:
  // taps.size() must equal the taps the choice was compiled for.
  FilterKernel(Choice choice, std::span<const float> taps);

  // Enqueues out = filter(in) for n elements. in/out: device pointers, 16-byte
  // aligned when the configuration uses vector accesses (cuMemAlloc's are).
  // Throws std::invalid_argument for misaligned pointers or n out of range.
  void launch(CUstream stream, CUdeviceptr in, CUdeviceptr out, std::int64_t n) const;

  [[nodiscard]] const Choice& choice() const { return choice_; }

private:
  Choice choice_;
  int taps_;
};

} // namespace memtune::templates
