// Energy on the GPU (energy_meter.hpp): the counter's update period is found,
// a device-to-device copy of 2x L2 measures a plausible energy per launch
// (positive, more than idling would draw, mean watts within the board's
// enforced limit) and measures it again within the batches' own spread.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/measure/energy_meter.hpp>
#include <memtune/measure/measure.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace memtune;

TEST_CASE("energy of a copy: a plausible joules per launch at watts within the board's limit, repeatable") {
  cuda::Context context(0);
  const Target target = local_target(0);
  const std::size_t bytes = 2 * target.l2_bytes;
  cuda::DeviceBuffer src(bytes), dst(bytes);
  const cuda::DriverApi& cu = cuda::driver_api();
  const auto copy = [&](CUstream s) { MEMTUNE_CU(cu.cuMemcpyDtoDAsync(dst.get(), src.get(), bytes, s)); };

  EnergyOptions o;
  o.enabled = true;
  std::optional<EnergyMeter> meter;
  try {
    meter.emplace(context.device(), o);
  } catch (const EnergyUnavailable& e) {
    MESSAGE("energy cannot be measured here: " << e.what());
    CHECK_MESSAGE(false, "an H100/H200 has NVML's energy counter");
    return;
  }
  CHECK(meter->source() == EnergySource::counter); // Volta and later have it
  const Resolution& r = meter->resolution();
  MESSAGE("counter on PCI " << meter->bus_id() << ": step " << r.quantum_j * 1e3 << " mJ every " << r.period_s * 1e3
                            << " ms (" << r.changes << " changes seen)");
  CHECK(r.period_s > 0.0);
  CHECK(r.period_s < 1.0);
  CHECK(r.quantum_j > 0.0);

  Timer timer(target.l2_bytes, MeasureOptions{});
  const Timing t = timer.time(copy);
  const EnergyMeasurement a = meter->measure(copy, timer.stream(), t.median_s);
  const EnergyMeasurement b = meter->measure(copy, timer.stream(), t.median_s);

  nvml::NvmlLibrary nvml = nvml::NvmlLibrary::open();
  unsigned limit_mw = 0;
  MEMTUNE_NVML(nvml, nvml.api().nvmlDeviceGetEnforcedPowerLimit(nvml.device_by_pci_bus_id(meter->bus_id()), &limit_mw));
  const double limit_w = limit_mw / 1000.0;
  for (const EnergyMeasurement& m : {a, b}) {
    MESSAGE("copy of " << bytes / 1048576.0 << " MiB, " << t.median_s * 1e6 << " us cold: " << m.joules_per_launch * 1e3
                       << " mJ per launch (+-" << m.spread * 100 << " %, " << m.repeats << " batches of "
                       << m.launches_per_batch << " launches, " << m.batch_seconds << " s), " << m.mean_watts
                       << " W mean, idle " << m.idle_watts << " W, board limit " << limit_w << " W");
    CHECK(m.repeats == o.repeats);
    CHECK(m.joules_per_launch > 0.0);
    CHECK(m.idle_watts > 0.0);
    CHECK(m.idle_watts < limit_w);
    // A copy at full bandwidth draws more than an idle board, and no more than its limit (+10 % for the
    // counter's and the limiter's own averaging).
    CHECK(m.mean_watts > m.idle_watts);
    CHECK(m.mean_watts < 1.1 * limit_w);
    // Sized from the cold median; warm launches may run faster, never by half.
    CHECK(m.batch_seconds >= o.min_periods * r.period_s * 0.5);
    CHECK(m.spread < 0.05);
  }
  // The second call measures what the first did, within 5 %.
  CHECK(std::abs(a.joules_per_launch / b.joules_per_launch - 1.0) < 0.05);
}
