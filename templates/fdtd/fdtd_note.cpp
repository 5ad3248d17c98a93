// What the fdtd run adds to the rationale: the best candidate of each block
// shape, with its warps/SM and their limiter (the occupancy story), and what
// rows that are not 16-byte aligned cost.
#include "fdtd_geometry.hpp"

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

std::string fdtd_alignment_note(const Problem& problem) {
  const auto nx = problem.find("nx");
  if (nx == problem.end() || fdtd_row_piece(nx->second) == 4) return {};
  // The ring's copies and stores need rows of whole 16-byte vectors; the
  // stencil reads zeros outside the volume, so zero columns beyond nx change
  // no output inside it.
  const std::int64_t n = nx->second, padded = (n + 3) / 4 * 4;
  const bool even = fdtd_row_piece(n) == 2;
  return "nx = " + std::to_string(n) + " is not a multiple of 4: rows are not 16-byte aligned, so the ring copies " +
         (even ? "8-byte pieces and stores float2 pairs" : "4-byte pieces and stores single floats") +
         " where aligned rows take 16-byte copies (or the copy engine) and whole-vector stores; a volume stored with its rows "
         "padded by zero columns to nx = " +
         std::to_string(padded) + " gives the same outputs at x < " + std::to_string(n) +
         " and takes the aligned loop (docs/results.md: on an H200 " +
         (even ? "302x300x300 ran at 67 % of the copy ceiling" : "301x300x300 ran at 59 % of the copy ceiling") +
         ", 300x300x300 at 71 %).";
}

std::string fdtd_note(const TuningResult& r) {
  const std::string shapes = fdtd_shape_note(r), alignment = fdtd_alignment_note(r.problem);
  return shapes.empty() ? alignment : alignment.empty() ? shapes : shapes + " " + alignment;
}

} // namespace memtune::templates
