#pragma once
// Where and how candidates run: the GPU (or GPUs), the measurement protocol,
// the objective, the worker process. Part of TuneOptions (tuner.hpp); what
// the candidate executor needs.
#include <memtune/isolate/isolation_options.hpp>
#include <memtune/measure/device_list.hpp>
#include <memtune/measure/measure.hpp>
#include <memtune/measure/objective.hpp>

#include <optional>

namespace memtune {

struct ExecutionOptions {
  int device = 0;                  // CUDA device ordinal
  // Measured runs on several GPUs of this host (device_list.hpp): one worker
  // process per GPU, each candidate measured on whichever is idle, and bayes
  // proposing batches of as many candidates as there are GPUs. The GPUs must
  // be of one model (else MixedDevices; tune_each_model tunes each model
  // apart). Unset: `device` alone.
  std::optional<DeviceList> devices;
  MeasureOptions measure;
  // What the search minimises (objective.hpp): energy and edp measure each
  // candidate's joules per launch (measure.energy is then enabled) and need
  // a GPU whose energy NVML reports; without one tune() throws
  // EnergyUnavailable before anything runs.
  Objective objective = Objective::time;
  // Measured runs: candidates launch in a supervised worker process, with a
  // watchdog (isolation_options.hpp).
  IsolationOptions isolation;
};

} // namespace memtune
