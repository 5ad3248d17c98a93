#pragma once
// The GPUs of one host that a measured run uses (`--devices all|0,2,...`):
// one worker process each, candidates sent to whichever is idle. A ranking
// holds one GPU model, so the listed GPUs must be of one model; a host of
// several models is tuned once per model (group_by_model, tune_each_model).
//
//   DeviceList::parse("all").resolve(4)  -> {0, 1, 2, 3}
//   DeviceList::parse("0,2").resolve(4)  -> {0, 2}
#include <memtune/measure/device.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace memtune {

struct DeviceList {
  bool all = false;          // every GPU the driver reports
  std::vector<int> ordinals; // when not `all`: distinct CUDA ordinals, in the order given

  // "all", or ordinals separated by commas ("0,2,3"). Throws
  // std::invalid_argument saying what is wrong: empty, not a whole number,
  // negative, repeated.
  [[nodiscard]] static DeviceList parse(const std::string& text);
  // The ordinals to use on a host with `count` GPUs: `all` is 0..count-1, a
  // list itself (a listed GPU the host lacks is its worker's error, with the
  // driver's count: WorkerPool).
  [[nodiscard]] std::vector<int> resolve(int count) const;
  // The first GPU to start (a worker on it tells how many GPUs there are).
  [[nodiscard]] int first() const { return all || ordinals.empty() ? 0 : ordinals.front(); }
  // As parse() reads it: "all" or "0,2".
  [[nodiscard]] std::string to_string() const;
};

// GPUs of one model (the fingerprint that keys profiles: name, compute
// capability, SM count), with their ordinals.
struct DeviceGroup {
  DeviceFingerprint model;
  std::vector<int> ordinals;
};

// The GPUs grouped by model, each group in the order its first GPU comes,
// its ordinals in the order given.
[[nodiscard]] std::vector<DeviceGroup> group_by_model(const std::vector<std::pair<int, DeviceFingerprint>>& devices);

// "0, 2: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
[[nodiscard]] std::string describe(const DeviceGroup& group);

// The listed GPUs are of more than one model: one run cannot rank them
// together. The message names every model and its ordinals, and what to do.
class MixedDevices : public std::invalid_argument {
public:
  explicit MixedDevices(std::vector<DeviceGroup> groups);
  [[nodiscard]] const std::vector<DeviceGroup>& groups() const { return groups_; }

private:
  std::vector<DeviceGroup> groups_;
};

} // namespace memtune
