#pragma once
// Where a measured run's set-up went: the part of its wall time that does not
// divide among GPUs. Each worker starts (its process, CUDA context and the
// GPU's description), fills its inputs, runs the reference and computes a
// callback's expected values, side by side with the others; the first GPU
// alone measures the copy ceiling and the same-size copy. What a run on n
// GPUs can gain over one is bounded by these.
//
//   set-up: the first candidate went to a GPU 1.87 s after the start; per worker (the slowest of 2):
//   start 0.242 s, inputs 0.270 s, reference 0.000 s, expected values 1.312 s; copy ceiling 0.003 s on GPU 0
#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune {

// One worker's part, in its own process. [seconds] each; 0: not done.
struct WorkerSetupTimes {
  int device = 0;          // its GPU ordinal
  double start_s = 0;      // from its exec to ready: the process, the CUDA context, the GPU's description
  double inputs_s = 0;     // filling and uploading the inputs (after ready, while the tuning process compiles the reference)
  double reference_s = 0;  // the reference run: the expected values on the GPU (and, on the first GPU, one timed launch)
  double expected_s = 0;   // a callback's expected values for one configuration (on the host)
};

struct SetupTimes {
  std::vector<WorkerSetupTimes> workers; // one per GPU, in the order of the run's devices
  double ceiling_s = 0;        // [seconds] measuring the copy ceiling on the first GPU (0: none, e.g. a resumed run's)
  double same_size_copy_s = 0; // [seconds] measuring the same-size copy there (0: none)
  // [seconds] from the start of tune() to the first candidate sent to a GPU
  // (nullopt: none was, e.g. every candidate failed to compile).
  std::optional<double> first_candidate_s;

  // The slowest worker's figure of one part (the part every GPU waits for).
  [[nodiscard]] double slowest(double WorkerSetupTimes::*part) const;
};

// {"first_candidate_s", "copy_ceiling_s", "same_size_copy_s", "workers": [{"device", "start_s", "inputs_s",
// "reference_s", "expected_s"}]}; first_candidate_s is null when no candidate was sent.
[[nodiscard]] nlohmann::json setup_times_json(const SetupTimes& times);
// One line for the header (the example above): a part nobody did is left out.
[[nodiscard]] std::string describe_setup_times(const SetupTimes& times);

} // namespace memtune
