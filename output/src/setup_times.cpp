#include <memtune/io/number_text.hpp>
#include <memtune/output/setup_times.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace memtune {

double SetupTimes::slowest(double WorkerSetupTimes::*part) const {
  double s = 0;
  for (const WorkerSetupTimes& w : workers) s = std::max(s, w.*part);
  return s;
}

nlohmann::json setup_times_json(const SetupTimes& t) {
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerSetupTimes& w : t.workers)
    workers.push_back({{"device", w.device},
                       {"start_s", w.start_s},
                       {"inputs_s", w.inputs_s},
                       {"reference_s", w.reference_s},
                       {"expected_s", w.expected_s}});
  return {{"first_candidate_s", t.first_candidate_s ? nlohmann::json(*t.first_candidate_s) : nlohmann::json()},
          {"copy_ceiling_s", t.ceiling_s},
          {"same_size_copy_s", t.same_size_copy_s},
          {"workers", std::move(workers)}};
}

std::string describe_setup_times(const SetupTimes& t) {
  std::string s = "set-up: ";
  s += t.first_candidate_s ? number_text("the first candidate went to a GPU %.2f s after the start", *t.first_candidate_s)
                           : std::string("no candidate went to a GPU");
  if (!t.workers.empty()) {
    // Every GPU waits for the slowest worker of each part before it measures.
    s += t.workers.size() == 1 ? "; the worker: " : "; per worker (the slowest of " + std::to_string(t.workers.size()) + "): ";
    // Milliseconds shown: a copy or a reference launch often takes a few.
    s += number_text("start %.3f s", t.slowest(&WorkerSetupTimes::start_s)) +
         number_text(", inputs %.3f s", t.slowest(&WorkerSetupTimes::inputs_s)) +
         number_text(", reference %.3f s", t.slowest(&WorkerSetupTimes::reference_s));
    if (const double expected = t.slowest(&WorkerSetupTimes::expected_s); expected > 0)
      s += number_text(", expected values %.3f s", expected);
  }
  if (t.ceiling_s > 0 || t.same_size_copy_s > 0) {
    s += number_text("; copy ceiling %.3f s", t.ceiling_s);
    if (t.same_size_copy_s > 0) s += number_text(" and same-size copy %.3f s", t.same_size_copy_s);
    if (!t.workers.empty()) s += " on GPU " + std::to_string(t.workers.front().device);
  }
  return s;
}

} // namespace memtune
