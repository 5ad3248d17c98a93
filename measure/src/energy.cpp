#include <memtune/measure/energy.hpp>
#include <memtune/measure/measure.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtune {

const char* to_string(EnergySource source) { return source == EnergySource::counter ? "counter" : "power"; }

EnergySource energy_source_from_string(const std::string& text) {
  if (text == "counter") return EnergySource::counter;
  if (text == "power") return EnergySource::power;
  throw std::invalid_argument("unknown energy source '" + text + "' (counter or power)");
}

double energy_time_allowance(const EnergyOptions& options) {
  if (!options.enabled) return 0.0;
  // The batch may run over its plan when warm launches are slower than the
  // timed median: twice its cap.
  return 4 * kEdgeTimeout + options.repeats * (2 * kEdgeTimeout + 2 * options.max_batch_seconds);
}

std::uint64_t counter_delta_mj(std::uint64_t before, std::uint64_t after, double seconds, double max_watts) {
  const std::uint64_t delta = after - before; // modulo 2^64: a wrapped counter still counts forwards
  // A reset counter (driver reloaded) reads as a step of nearly 2^64 mJ; no
  // board draws more than max_watts, so such a step is refused, not believed.
  const double limit_mj = std::max(seconds, 0.0) * max_watts * 1000.0 + 1000.0;
  if (static_cast<double>(delta) > limit_mj)
    throw std::runtime_error("the GPU's energy counter stepped from " + std::to_string(before) + " to " +
                             std::to_string(after) + " mJ in " + std::to_string(seconds) +
                             " s, more than any board draws: it was reset (driver reloaded?)");
  return delta;
}

namespace {
// Indices of the samples whose value differs from the one before.
std::vector<std::size_t> changes(const std::vector<CounterSample>& samples) {
  std::vector<std::size_t> at;
  for (std::size_t i = 1; i < samples.size(); ++i)
    if (samples[i].mj != samples[i - 1].mj) at.push_back(i);
  return at;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
} // namespace

std::optional<Resolution> counter_resolution(const std::vector<CounterSample>& samples) {
  const std::vector<std::size_t> at = changes(samples);
  if (at.size() < 2) return std::nullopt;
  Resolution r;
  r.changes = static_cast<int>(at.size());
  std::vector<double> intervals;
  for (std::size_t k = 1; k < at.size(); ++k) intervals.push_back(samples[at[k]].t_s - samples[at[k - 1]].t_s);
  r.period_s = median(intervals);
  std::uint64_t smallest = UINT64_MAX;
  for (std::size_t i : at) smallest = std::min(smallest, samples[i].mj - samples[i - 1].mj);
  r.quantum_j = static_cast<double>(smallest) / 1000.0;
  return r;
}

std::optional<double> idle_watts(const std::vector<CounterSample>& samples) {
  const std::vector<std::size_t> at = changes(samples);
  if (at.size() < 2) return std::nullopt;
  const CounterSample& a = samples[at.front()];
  const CounterSample& b = samples[at.back()];
  if (!(b.t_s > a.t_s)) return std::nullopt;
  return static_cast<double>(counter_delta_mj(a.mj, b.mj, b.t_s - a.t_s)) / 1000.0 / (b.t_s - a.t_s);
}

int batch_launches(const Resolution& resolution, double launch_s, double idle_w, const EnergyOptions& options) {
  if (!(launch_s > 0)) throw std::invalid_argument("batch_launches: a launch time must be positive");
  double seconds = options.min_periods * resolution.period_s;
  // At least min_quanta steps of the counter, even at the idle power alone
  // (a kernel draws more): the step is then at most 1 / min_quanta of the batch.
  if (idle_w > 0) seconds = std::max(seconds, options.min_quanta * resolution.unit_j / idle_w);
  seconds = std::min(seconds, options.max_batch_seconds);
  const double launches = std::ceil(seconds / launch_s);
  return static_cast<int>(std::clamp(launches, 1.0, 1e9));
}

double batch_joules(std::uint64_t delta_mj, double edge_interval_s, double batch_s, double idle_w) {
  // The edges fall up to one period outside the batch; that time idles.
  const double outside_s = std::max(0.0, edge_interval_s - batch_s);
  return static_cast<double>(delta_mj) / 1000.0 - idle_w * outside_s;
}

double integrate_power(const std::vector<PowerSample>& samples, double t0, double t1) {
  if (samples.empty()) throw std::invalid_argument("integrate_power: no power samples");
  if (t1 < t0) throw std::invalid_argument("integrate_power: the interval ends before it starts");
  // Piecewise linear between samples, flat before the first and after the last.
  const auto power_at = [&](double t) {
    if (t <= samples.front().t_s) return samples.front().watts;
    if (t >= samples.back().t_s) return samples.back().watts;
    const auto hi = std::upper_bound(samples.begin(), samples.end(), t,
                                     [](double v, const PowerSample& s) { return v < s.t_s; });
    const auto lo = hi - 1;
    const double span = hi->t_s - lo->t_s;
    return span > 0 ? lo->watts + (hi->watts - lo->watts) * (t - lo->t_s) / span : hi->watts;
  };
  std::vector<double> knots{t0};
  for (const PowerSample& s : samples)
    if (s.t_s > t0 && s.t_s < t1) knots.push_back(s.t_s);
  knots.push_back(t1);
  double joules = 0;
  for (std::size_t i = 1; i < knots.size(); ++i)
    joules += 0.5 * (power_at(knots[i - 1]) + power_at(knots[i])) * (knots[i] - knots[i - 1]);
  return joules;
}

EnergyMeasurement summarize_energy(const std::vector<double>& joules_per_launch, const std::vector<double>& batch_s,
                                   int launches_per_batch, double idle_w, const Resolution& resolution,
                                   EnergySource source) {
  if (joules_per_launch.empty() || joules_per_launch.size() != batch_s.size() || launches_per_batch < 1)
    throw std::invalid_argument("summarize_energy: one batch time per batch, at least one batch and launch");
  // The same statistics as the times' (measure.hpp).
  const Timing t = summarize(joules_per_launch, false);
  EnergyMeasurement m;
  m.joules_per_launch = t.median_s;
  m.min_j = t.min_s;
  m.max_j = t.max_s;
  m.spread = t.spread;
  m.repeats = t.samples;
  m.launches_per_batch = launches_per_batch;
  m.batch_seconds = median(batch_s);
  m.mean_watts = m.batch_seconds > 0 ? m.joules_per_launch * launches_per_batch / m.batch_seconds : 0.0;
  m.idle_watts = idle_w;
  m.resolution_j = resolution.quantum_j;
  m.period_s = resolution.period_s;
  m.source = source;
  return m;
}

} // namespace memtune
