// --devices on the GPU: a run through one worker per listed GPU finds what a
// run in this process (--no-isolation) finds, candidate for candidate; on a
// host of several GPUs, `all` shares the candidates among them.
#include <memtune/cuda/driver_api.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/tune/tuner.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

using namespace memtune;

namespace {

// The filter space at 16M points, the default taps: a 35 us kernel whose median
// is steady to well under 1 %; at 1M points (6 us) two runs' bests differed by 6 %.
TuningResult filter_run(TuneOptions o) {
  o.measure.min_samples = 10; // the best of two runs is compared: a steadier median than quick_options' 3
  o.measure.max_samples = 10;
  return tune(templates::filter_description(), {{"n", 1 << 24}}, o);
}

std::map<std::string, Status> statuses(const TuningResult& r) {
  std::map<std::string, Status> s;
  for (const Evaluation& e : r.evaluations) s[r.space.format(e.config)] = e.status;
  return s;
}

// The two runs' bests are one configuration, or two whose times are within
// 5 % in both runs (a near tie that noise may order either way).
void check_same_best(const TuningResult& a, const TuningResult& b) {
  REQUIRE(a.best());
  REQUIRE(b.best());
  if (a.best()->config == b.best()->config) return;
  std::map<std::string, double> time_in_a;
  for (const Evaluation& e : a.evaluations)
    if (e.ok()) time_in_a[a.space.format(e.config)] = e.timing->median_s;
  const double b_best_in_a = time_in_a.at(b.space.format(b.best()->config));
  CAPTURE(a.space.format(a.best()->config));
  CAPTURE(b.space.format(b.best()->config));
  CHECK(b_best_in_a <= 1.05 * a.best()->timing->median_s);
}

} // namespace

TEST_CASE("--devices 0 through the worker: the candidates, statuses and best of the run in this process") {
  TuneOptions in_process = quick_options();
  in_process.isolation.enabled = false;
  const TuningResult here = filter_run(in_process);
  TuneOptions listed = quick_options();
  listed.devices = DeviceList::parse("0");
  const TuningResult worker = filter_run(listed);

  CHECK(here.isolation.rfind("off:", 0) == 0);
  CHECK(worker.isolation.rfind("worker process", 0) == 0);
  CHECK(worker.devices == std::vector<int>{0});
  CHECK(worker.aborted.empty());
  REQUIRE(worker.evaluations.size() == here.evaluations.size());
  for (std::size_t i = 0; i < here.evaluations.size(); ++i) // one GPU: the grid's order in both
    CHECK(worker.evaluations[i].config == here.evaluations[i].config);
  CHECK(statuses(worker) == statuses(here));
  check_same_best(here, worker);
}

TEST_CASE("--devices all on a host of several GPUs: every candidate once, shared among them, the same best") {
  int count = 0;
  (void)cuda::driver_api().cuDeviceGetCount(&count);
  if (count < 2) {
    MESSAGE("one GPU here: --devices all is --devices 0 (the test above)");
    return;
  }
  TuneOptions o = quick_options();
  const TuningResult one = filter_run(o);
  o.devices = DeviceList::parse("all");
  const TuningResult all = filter_run(o);
  CHECK(all.devices.size() == static_cast<std::size_t>(count));
  CHECK(all.evaluations.size() == one.evaluations.size());
  CHECK(statuses(all) == statuses(one));
  std::set<int> used;
  for (const Evaluation& e : all.evaluations)
    if (e.device >= 0) used.insert(e.device);
  CHECK(used.size() >= 2);
  check_same_best(one, all);
}

TEST_CASE("a GPU the host does not have: the driver's answer, with its count, although each worker sees its own GPU") {
  int count = 0;
  (void)cuda::driver_api().cuDeviceGetCount(&count);
  TuneOptions o = quick_options();
  o.devices = DeviceList::parse(std::to_string(count)); // one past the last
  const std::string expected = "there is no GPU " + std::to_string(count) + ": the driver reports " + std::to_string(count);
  CHECK_THROWS_WITH_AS(filter_run(o), doctest::Contains(expected.c_str()), std::invalid_argument);
}
