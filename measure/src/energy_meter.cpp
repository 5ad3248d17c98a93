#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/event.hpp>
#include <memtune/measure/energy_meter.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace memtune {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// NVML answers in tens of microseconds; polling faster only burns a core the
// compile pool could use, and 100 us is far below any update period.
constexpr auto kPollInterval = std::chrono::microseconds(100);
// The power sampler's interval: the reading changes far less often.
constexpr auto kPowerInterval = std::chrono::milliseconds(1);

nvml::NvmlLibrary open_nvml(const std::string& path) {
  try {
    return nvml::NvmlLibrary::open(path);
  } catch (const nvml::NvmlUnavailable& e) {
    throw EnergyUnavailable(std::string("energy is measured with NVML: ") + e.what());
  }
}

// A sampler thread reading the board's power while it lives.
class PowerSampler {
public:
  explicit PowerSampler(std::function<PowerSample()> read) : read_(std::move(read)), thread_([this] { run(); }) {}
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;
  ~PowerSampler() {
    stop_ = true;
    thread_.join();
  }
  std::vector<PowerSample> samples() {
    std::lock_guard lock(mutex_);
    if (!error_.empty()) throw EnergyUnavailable("reading the GPU's power failed: " + error_);
    return samples_;
  }

private:
  void run() {
    while (!stop_) {
      try {
        const PowerSample s = read_();
        std::lock_guard lock(mutex_);
        samples_.push_back(s);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);
        error_ = e.what();
        return;
      }
      std::this_thread::sleep_for(kPowerInterval);
    }
  }
  std::function<PowerSample()> read_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<PowerSample> samples_;
  std::string error_;
  std::thread thread_; // last: starts once the rest exists
};

} // namespace

EnergyMeter::EnergyMeter(CUdevice device, EnergyOptions options, const std::string& nvml_path)
    : nvml_(open_nvml(nvml_path)), options_(options) {
  const cuda::DriverApi& cu = cuda::driver_api();
  int domain = 0, bus = 0, slot = 0;
  MEMTUNE_CU(cu.cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device));
  MEMTUNE_CU(cu.cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device));
  MEMTUNE_CU(cu.cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device));
  bus_id_ = nvml::pci_bus_id(domain, bus, slot);
  try {
    device_ = nvml_.device_by_pci_bus_id(bus_id_);
  } catch (const nvml::NvmlError& e) {
    throw EnergyUnavailable("NVML does not know the CUDA device at PCI " + bus_id_ + ": " + e.what());
  }
  unsigned long long mj = 0;
  const nvml::Return counter = nvml_.api().nvmlDeviceGetTotalEnergyConsumption(device_, &mj);
  if (counter == nvml::kSuccess) {
    source_ = EnergySource::counter;
    const auto r = counter_resolution(poll_counter(3));
    if (!r)
      throw EnergyUnavailable("the GPU's energy counter (" + bus_id_ + ") did not change twice in " +
                              std::to_string(3 * kEdgeTimeout) + " s");
    resolution_ = *r;
    return;
  }
  unsigned mw = 0;
  const nvml::Return power = nvml_.api().nvmlDeviceGetPowerUsage(device_, &mw);
  if (power != nvml::kSuccess)
    throw EnergyUnavailable("the GPU at PCI " + bus_id_ + " reports neither its energy counter (" +
                            nvml_.describe(counter) + ") nor its power (" + nvml_.describe(power) +
                            "), so energy cannot be measured");
  source_ = EnergySource::power;
  // How often the power reading changes: polled as a counter of milliwatts.
  std::vector<CounterSample> readings;
  const double deadline = now_s() + 3 * kEdgeTimeout;
  int changes = 0;
  while (changes < 3 && now_s() < deadline) {
    const PowerSample p = read_power();
    const auto value = static_cast<std::uint64_t>(p.watts * 1000.0 + 0.5);
    if (!readings.empty() && readings.back().mj != value) ++changes;
    readings.push_back({p.t_s, value});
    std::this_thread::sleep_for(kPowerInterval);
  }
  if (const auto r = counter_resolution(readings)) {
    resolution_ = *r;
    resolution_.quantum_j *= resolution_.period_s; // a step of the reading held for one period
    resolution_.unit_j = 0.001 * resolution_.period_s; // 1 mW held for one period
  } else {
    // An idle board may hold one reading: take the longest wait as its period.
    resolution_ = {kEdgeTimeout, 0.001 * kEdgeTimeout, 0, 0.001 * kEdgeTimeout};
  }
}

CounterSample EnergyMeter::read_counter() const {
  unsigned long long mj = 0;
  MEMTUNE_NVML(nvml_, nvml_.api().nvmlDeviceGetTotalEnergyConsumption(device_, &mj));
  return {now_s(), mj};
}

PowerSample EnergyMeter::read_power() const {
  unsigned mw = 0;
  MEMTUNE_NVML(nvml_, nvml_.api().nvmlDeviceGetPowerUsage(device_, &mw));
  return {now_s(), mw / 1000.0};
}

CounterSample EnergyMeter::next_edge() const {
  const CounterSample first = read_counter();
  for (;;) {
    std::this_thread::sleep_for(kPollInterval);
    const CounterSample s = read_counter();
    if (s.mj != first.mj) return s;
    if (s.t_s - first.t_s > kEdgeTimeout)
      throw EnergyUnavailable("the GPU's energy counter (" + bus_id_ + ") did not change for " +
                              std::to_string(kEdgeTimeout) + " s");
  }
}

std::vector<CounterSample> EnergyMeter::poll_counter(int edges) const {
  std::vector<CounterSample> samples{read_counter()};
  const double deadline = samples.front().t_s + edges * kEdgeTimeout;
  int seen = 0;
  while (seen < edges && now_s() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
    samples.push_back(read_counter());
    if (samples.back().mj != samples[samples.size() - 2].mj) ++seen;
  }
  return samples;
}

EnergyMeasurement EnergyMeter::measure(const std::function<void(CUstream)>& launch, CUstream stream, double launch_s,
                                       const std::function<void(CUstream)>& before_launch) {
  int launches = 0;
  const auto batch = [&](CUstream s) {
    for (int i = 0; i < launches; ++i) {
      if (before_launch) before_launch(s);
      launch(s);
    }
  };
  MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(stream)); // idle from here: the baseline
  if (source_ == EnergySource::counter) {
    // The baseline edge to edge, just before: three edges, two full periods.
    const auto idle = idle_watts(poll_counter(3));
    if (!idle) throw EnergyUnavailable("the GPU's energy counter (" + bus_id_ + ") stopped changing");
    launches = batch_launches(resolution_, launch_s, *idle, options_);
    std::vector<double> joules, seconds;
    for (int r = 0; r < options_.repeats; ++r) {
      cuda::Event start, stop;
      const CounterSample e0 = next_edge();
      start.record(stream);
      batch(stream);
      stop.record(stream);
      stop.synchronize();
      const CounterSample e1 = next_edge();
      const double batch_s = cuda::elapsed_seconds(start, stop);
      const std::uint64_t delta = counter_delta_mj(e0.mj, e1.mj, e1.t_s - e0.t_s);
      joules.push_back(batch_joules(delta, e1.t_s - e0.t_s, batch_s, *idle) / launches);
      seconds.push_back(batch_s);
    }
    return summarize_energy(joules, seconds, launches, *idle, resolution_, source_);
  }
  PowerSampler sampler([this] { return read_power(); });
  // The baseline: the sampler's readings over a few periods of idling.
  const double idle_from = now_s();
  std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.05, 3 * resolution_.period_s)));
  const double idle_to = now_s();
  const double idle = integrate_power(sampler.samples(), idle_from, idle_to) / (idle_to - idle_from);
  launches = batch_launches(resolution_, launch_s, idle, options_);
  std::vector<double> joules, seconds;
  std::vector<std::pair<double, double>> windows;
  for (int r = 0; r < options_.repeats; ++r) {
    cuda::Event start, stop;
    const double t0 = now_s();
    start.record(stream);
    batch(stream);
    stop.record(stream);
    stop.synchronize();
    const double t1 = now_s();
    seconds.push_back(cuda::elapsed_seconds(start, stop));
    windows.emplace_back(t0, t1);
  }
  // The reading lags the draw by up to a period: wait that long before integrating.
  std::this_thread::sleep_for(std::chrono::duration<double>(resolution_.period_s));
  const std::vector<PowerSample> samples = sampler.samples();
  for (std::size_t r = 0; r < windows.size(); ++r) {
    const auto [t0, t1] = windows[r];
    joules.push_back((integrate_power(samples, t0, t1) - idle * std::max(0.0, t1 - t0 - seconds[r])) / launches);
  }
  return summarize_energy(joules, seconds, launches, idle, resolution_, source_);
}

} // namespace memtune
