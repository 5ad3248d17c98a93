#pragma once
// Energy per launch from the GPU's own meters, and the arithmetic behind it
// (kept apart from NVML and CUDA so that tests check it on the CPU).
//
// The board's total-energy counter (nvmlDeviceGetTotalEnergyConsumption, mJ
// since the driver loaded) changes only every update period (tens of ms on
// data-centre GPUs), far longer than one memory-bound launch. So a batch of
// back-to-back launches is measured between two counter changes ("edges"):
//   edge e0 at t0 | batch of N launches, T seconds (CUDA events) | edge e1 at t1
//   joules per launch = (e1 - e0 - idle_W * (t1 - t0 - T)) / N
// where idle_W is the counter's rate while the GPU idles, measured between
// edges just before. The batch is long enough to resolve: it lasts at least
// EnergyOptions::min_periods update periods and, at the idle power alone, at
// least min_quanta units of the counter (1 mJ). Without the counter, a sampler thread
// integrates nvmlDeviceGetPowerUsage over the batch instead.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

struct EnergyOptions {
  bool enabled = false;          // measure energy at all (it costs seconds per candidate)
  int repeats = 5;               // batches measured per candidate; their median is reported
  double min_periods = 5.0;      // a batch lasts at least this many counter update periods
  double min_quanta = 100.0;     // and, at idle power, at least this many units of the reading (Resolution::unit_j)
  double max_batch_seconds = 3.0; // [seconds] cap on one batch
};

// Where the joules came from.
enum class EnergySource { counter, power };
const char* to_string(EnergySource source);
EnergySource energy_source_from_string(const std::string& text); // throws std::invalid_argument

// One candidate's energy: the median of EnergyOptions::repeats batches.
struct EnergyMeasurement {
  double joules_per_launch = 0;  // [J] median over the batches; the board's energy while the launch runs
  double min_j = 0;              // [J] per launch, smallest batch
  double max_j = 0;              // [J] per launch, largest batch
  double spread = 0;             // IQR / median of the batches' joules per launch
  double mean_watts = 0;         // [W] median batch's joules / its time
  double idle_watts = 0;         // [W] the baseline subtracted outside the batches
  int repeats = 0;               // batches measured
  int launches_per_batch = 0;
  double batch_seconds = 0;      // [seconds] one batch, median
  double resolution_j = 0;       // [J] the counter's (or power reading's x period) smallest step
  double period_s = 0;           // [seconds] how often the reading changed, measured
  EnergySource source = EnergySource::counter;
  // Joules above the idle baseline: joules_per_launch - idle_watts x launch time.
  [[nodiscard]] double dynamic_joules(double launch_seconds) const {
    return joules_per_launch - idle_watts * launch_seconds;
  }
};

// [seconds] the most one candidate's energy measurement may take (the
// watchdog's allowance): the idle baseline's edges, and per batch its cap and
// two edges, each edge waited for at most kEdgeTimeout.
inline constexpr double kEdgeTimeout = 1.0; // [seconds] a reading that does not change for this long is stuck
double energy_time_allowance(const EnergyOptions& options);

// ---- counter arithmetic ----------------------------------------------------

struct CounterSample {
  double t_s = 0;               // [seconds] host steady clock
  std::uint64_t mj = 0;         // [mJ] counter value
};

// after - before in mJ, modulo 2^64: a counter that wrapped still counts
// forwards. Throws std::runtime_error when the step is impossible (above
// max_watts over `seconds`): the counter was reset (driver reloaded).
std::uint64_t counter_delta_mj(std::uint64_t before, std::uint64_t after, double seconds, double max_watts = 5000.0);

// What polling showed of a reading that changes in steps.
struct Resolution {
  double period_s = 0;   // [seconds] median time between changes
  double quantum_j = 0;  // [J] smallest non-zero step seen (at idle: the energy of one update period)
  int changes = 0;       // changes seen
  double unit_j = 0.001; // [J] the reading's unit: NVML counts millijoules
};
// From samples taken by polling (time-ordered). nullopt when fewer than two
// changes were seen (no period can be told).
std::optional<Resolution> counter_resolution(const std::vector<CounterSample>& samples);

// [W] the counter's rate between its first and last change in `samples`
// (edge to edge, so no partial period counts); nullopt with fewer than two
// changes.
std::optional<double> idle_watts(const std::vector<CounterSample>& samples);

// Launches per batch: enough for the batch to last min_periods update
// periods and, at `idle_w`, min_quanta units of the reading (resolution.unit_j),
// within max_batch_seconds; at least one. `launch_s`: one launch's time.
// (Not min_quanta of the step seen, quantum_j: at idle that is one period's
// energy, so it would ask for 100 periods; a batch between two changes of
// the counter is exact to its unit at both ends, not to a step.)
int batch_launches(const Resolution& resolution, double launch_s, double idle_w, const EnergyOptions& options);

// [J] the energy of a batch between two edges: the counter's delta minus the
// idle baseline over the part of the edge interval outside the batch.
double batch_joules(std::uint64_t delta_mj, double edge_interval_s, double batch_s, double idle_w);

// ---- power integration (no counter) ----------------------------------------

struct PowerSample {
  double t_s = 0;    // [seconds]
  double watts = 0;  // [W]
};
// [J] trapezoidal integral of the (time-ordered) samples over [t0, t1],
// holding the first and last reading flat outside the samples. Throws
// std::invalid_argument without samples or with t1 < t0.
double integrate_power(const std::vector<PowerSample>& samples, double t0, double t1);

// ---- the batches' summary --------------------------------------------------

// Median, extremes and IQR / median of the per-launch joules of each batch
// (with `batch_s` the matching batch times), plus what was measured around
// them.
EnergyMeasurement summarize_energy(const std::vector<double>& joules_per_launch, const std::vector<double>& batch_s,
                                   int launches_per_batch, double idle_w, const Resolution& resolution,
                                   EnergySource source);

} // namespace memtune
