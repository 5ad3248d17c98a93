// What the fdtd run adds to the rationale: the best candidate of each block
// shape, with its warps/SM and their limiter (the occupancy story).
#include <memtune/templates/fdtd.hpp>
#include <memtune/output/tuning_result.hpp>

#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace memtune::templates {

std::string fdtd_shape_note(const TuningResult& r) {
  // The first candidate of each block shape in the result's ranking (its
  // fastest, ties broken as the ranking breaks them), fastest shape first.
  std::set<std::string> seen;
  std::vector<std::pair<std::string, const Evaluation*>> order;
  for (const std::size_t i : r.ranking()) {
    const Evaluation& e = r.evaluations[i];
    if (!e.config.has("bx") || !e.config.has("by")) continue;
    const std::string shape = std::to_string(e.config.at("bx")) + "x" + std::to_string(e.config.at("by"));
    if (seen.insert(shape).second) order.emplace_back(shape, &e);
  }
  if (order.size() < 2) return {};
  std::string note = "best per block shape (threads bx x by; " + std::string(r.measured ? "measured" : "predicted") +
                     "):";
  const double fastest = order.front().second->timing->median_s;
  for (const auto& [shape, e] : order) {
    const model::Occupancy& o = e->occupancy;
    char buf[160];
    std::snprintf(buf, sizeof buf, " %s: %.1f us (%.2fx), %d warps/SM of %d with %d registers/thread, limited by ",
                  shape.c_str(), e->timing->median_s * 1e6, e->timing->median_s / fastest, o.warps_per_sm,
                  o.max_warps_per_sm, e->resources.registers);
    std::string limit;
    for (std::size_t i = 0; i < o.limiters.size(); ++i)
      limit += (i ? (i + 1 == o.limiters.size() ? " and " : ", ") : "") + std::string(model::to_string(o.limiters[i]));
    note += buf + (limit.empty() ? std::string("nothing reported") : limit) + " [" + r.space.format(e->config) + "];";
  }
  note.back() = '.';
  return note;
}

} // namespace memtune::templates
