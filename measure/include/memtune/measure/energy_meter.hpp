#pragma once
// Joules per launch measured on the local GPU (the method: energy.hpp). The
// meter only reads: it never changes clocks, power limits or any other GPU
// setting, so what it reports is what the GPU does as it is.
//
//   EnergyMeter meter(context.device(), options.energy);   // throws EnergyUnavailable
//   EnergyMeasurement m = meter.measure(launch, stream, timing.median_s);
#include <memtune/measure/energy.hpp>
#include <memtune/cuda/nvml_api.hpp>

#include <cuda.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune {

// Energy cannot be measured on this GPU: no NVML, the device not found in
// NVML, neither the energy counter nor the power reading supported, or a
// reading that never changes. The message says which.
class EnergyUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class EnergyMeter {
public:
  // The NVML device of CUDA device `device`, matched by PCI bus id; probes
  // which reading it has and how often that changes (up to a few periods).
  // `nvml_path`: the NVML library (tests and unusual installs).
  EnergyMeter(CUdevice device, EnergyOptions options, const std::string& nvml_path = "libnvidia-ml.so.1");

  // Measures `launch` (enqueued on `stream`) in options.repeats batches, the
  // idle baseline just before them. `launch_s`: one launch's time, to size
  // the batches. `before_launch`, when given, runs before every launch in
  // the batch (an inout buffer's refill), and its energy counts with the
  // launch's. Throws EnergyUnavailable when a reading stops changing, and
  // cuda::DriverError when a launch fails.
  EnergyMeasurement measure(const std::function<void(CUstream)>& launch, CUstream stream, double launch_s,
                            const std::function<void(CUstream)>& before_launch = {});

  [[nodiscard]] EnergySource source() const { return source_; }
  [[nodiscard]] const Resolution& resolution() const { return resolution_; }
  [[nodiscard]] const std::string& bus_id() const { return bus_id_; }

private:
  CounterSample read_counter() const;
  PowerSample read_power() const;
  // Polls until the counter changes; the first sample with the new value.
  CounterSample next_edge() const;
  std::vector<CounterSample> poll_counter(int edges) const;

  nvml::NvmlLibrary nvml_;
  nvmlDevice_t device_ = nullptr;
  std::string bus_id_;
  EnergyOptions options_;
  EnergySource source_ = EnergySource::counter;
  Resolution resolution_;
};

} // namespace memtune
