// What the aos_soa run adds to the rationale: what changing the layout (the
// caller's decision) buys, from the best time of each layout.
#include <memtune/templates/aos_soa.hpp>
#include <memtune/output/tuning_result.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace memtune::templates {

namespace {
std::string ms(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  return buffer;
}
std::string ratio(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1fx", x);
  return buffer;
}
} // namespace

std::string aos_soa_layout_note(const Problem& problem, const std::map<std::string, double>& best) {
  const std::int64_t fields = problem.count("fields") ? problem.at("fields") : 3;
  const auto op = static_cast<AosSoaOp>(problem.count("op") ? problem.at("op") : 0);
  std::vector<std::pair<std::string, double>> timed;
  for (const auto& [layout, seconds] : best)
    if (seconds > 0) timed.emplace_back(layout, seconds);
  if (timed.empty()) return {};
  std::sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto& [fastest, t_fast] = timed.front();

  // A warp's 4-byte access to one field of 32 consecutive AoS structs spans
  // 32 * F * 4 bytes; it uses 128 of them.
  const std::int64_t struct_bytes = fields * 4;
  const std::int64_t span_sectors = (32 * struct_bytes + 31) / 32;
  const double waste = static_cast<double>(span_sectors) / 4.0;
  const std::string verb = op == AosSoaOp::write ? "store" : "load";
  const std::string aos_why = "aos keeps " + std::to_string(struct_bytes) + "-byte structs, so a warp's 4-byte " + verb +
                              " of one field touches " + ratio(waste) + " the 32-byte sectors it uses (" +
                              std::to_string(span_sectors) + " sectors for 128 bytes)";

  std::string note;
  const auto aos = best.find("aos");
  if (aos != best.end() && aos->second > 0 && fastest != "aos") {
    note = fastest + " is " + ratio(aos->second / t_fast) + " faster than aos here (" + ms(t_fast) + " vs " +
           ms(aos->second) + "): " + (fields == 1 ? "with one field aos and soa are the same layout" : aos_why) + ".";
    if (fastest == "aos_ldg")
      note += " The read-only path keeps the whole lines in L1, so the other fields' loads hit there.";
    else if (fastest == "aos_smem")
      note += " Staging the tile through shared memory turns it into 16-byte coalesced accesses and keeps the AoS layout.";
    else if (fastest == "aos_vec")
      note += " Moving a thread's consecutive structs as 8/16-byte vectors keeps the AoS layout and uses every byte "
              "of the lines it touches (across the thread's accesses).";
    else if (fastest == "soa")
      note += " In soa each field is its own array: every access is coalesced and up to 16 bytes wide.";
  } else if (fastest == "aos") {
    note = "aos is the fastest layout here (" + ms(t_fast) + ")";
    note += fields == 1 ? ": with one field aos and soa are the same layout." :
                          ": the L1 cache absorbs the " + ratio(waste) + " sectors per field load, so the layout costs nothing in DRAM traffic.";
  } else {
    note = fastest + " is the fastest layout here (" + ms(t_fast) + ").";
  }
  // How close the AoS-preserving variants come to the fastest.
  for (const auto& [layout, seconds] : timed) {
    if (layout == fastest || layout == "aos") continue;
    note += " " + layout + ": " + ms(seconds) + " (" + ratio(seconds / t_fast) + " the fastest).";
  }
  return note;
}

std::string aos_soa_explain(const TuningResult& result) {
  std::map<std::string, double> best;
  const search::Axis& layout = result.space.axis("layout");
  for (const auto& e : result.evaluations) {
    if (!e.ok() || !e.timing) continue;
    const std::string label = layout.format(e.config.at("layout"));
    auto it = best.find(label);
    if (it == best.end() || e.timing->median_s < it->second) best[label] = e.timing->median_s;
  }
  return best.size() < 2 ? std::string{} : aos_soa_layout_note(result.problem, best);
}

} // namespace memtune::templates
