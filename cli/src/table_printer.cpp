#include "table_printer.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

namespace memtune::cli {
namespace {

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string limiter_words(const model::Occupancy& o) {
  std::string s;
  for (model::Limiter l : o.limiters) s += (s.empty() ? "" : ", ") + std::string(model::to_string(l));
  return s;
}

// A kernel whose time is not modeled: its compiled candidates in evaluation
// order with registers, shared memory, warps/SM and what limits them.
void print_occupancy_rows(std::ostream& out, const TuningResult& r, std::size_t top) {
  std::vector<const Evaluation*> rows;
  for (const auto& e : r.evaluations)
    if (e.ok() && rows.size() < top) rows.push_back(&e);
  std::size_t config_width = 6;
  for (const Evaluation* e : rows) config_width = std::max(config_width, r.space.format(e->config).size());
  out << pad("config", config_width + 2) << pad("regs", 6, true) << pad("smem B", 8, true) << pad("warps/SM", 10, true)
      << "  limited by\n";
  for (const Evaluation* e : rows)
    out << pad(r.space.format(e->config), config_width + 2) << pad(std::to_string(e->resources.registers), 6, true)
        << pad(std::to_string(e->resources.static_smem_bytes + e->dynamic_smem_bytes), 8, true)
        << pad(std::to_string(e->occupancy.warps_per_sm) + "/" + std::to_string(e->occupancy.max_warps_per_sm), 10, true)
        << "  " << limiter_words(e->occupancy) << "\n";
  const auto compiled = static_cast<std::size_t>(
      std::count_if(r.evaluations.begin(), r.evaluations.end(), [](const Evaluation& e) { return e.ok(); }));
  if (compiled > rows.size()) out << "(" << compiled - rows.size() << " more compiled; --top N shows more)\n";
  out << "\nno ranking: the time of " << r.template_name << " is not modeled. Measure it on a GPU (--target local), "
      << "or give its description an access pattern (built-in templates have one).\n";
}

void print_failures(std::ostream& out, const TuningResult& r);

} // namespace

void print_table(std::ostream& out, const TuningResult& r, std::size_t top) {
  out << "memtune " << r.template_name << " " << format_problem(r.problem, r.problem_parameters) << " "
      << (r.measured ? "measured on " : "MODELED for ") << r.device.name << " (sm_" << r.device.cc_major
      << r.device.cc_minor << ", " << r.device.sm_count << " SMs), strategy " << r.strategy
      << (r.search_prior.empty() ? "" : " (prior mean: " + r.search_prior + ")") << "\n";
  if (!r.measured && !r.time_modeled) {
    out << "  time is not modeled: " << r.template_name << " has no access pattern for the model; registers from NVRTC "
        << "for sm_" << r.compiled_for_cc << ", occupancy and its limiter from cuda_occupancy.h with the target's limits";
    if (r.compiled_for_cc != r.device.cc_major * 10 + r.device.cc_minor)
      out << " (sm_" << r.compiled_for_cc << " is the nearest architecture this NVRTC supports)";
    out << "\n";
  } else if (!r.measured) {
    out << "  predicted by the analytical model, not measured (target \"" << r.target_name << "\"); registers from NVRTC for sm_"
        << r.compiled_for_cc;
    if (r.compiled_for_cc != r.device.cc_major * 10 + r.device.cc_minor)
      out << ", the nearest architecture this NVRTC supports";
    out << "\n";
  }
  for (const auto& p : r.space.pruned()) out << "  axis " << p.name << " pruned: " << p.reason << "\n";
  if (r.measured && !r.isolation.empty()) {
    out << "  candidates launched in: " << r.isolation;
    if (r.worker_restarts) out << ", " << r.worker_restarts << " replaced after a crash, a hang or a sticky error";
    out << "\n";
  }
  if (!r.journal.empty()) out << "  " << r.journal << "\n";
  if (r.ceiling)
    out << "  copy ceiling: " << format("%.0f GB/s", r.ceiling->gbps) << " (device-to-device copy of "
        << r.ceiling->bytes / (1 << 20) << " MiB, " << (r.ceiling->timing.cold ? "L2 flushed" : "warm L2")
        << ", median of " << r.ceiling->timing.samples << ")\n";
  out << "  " << r.evaluations.size() << " configurations " << (r.measured ? "evaluated, " : r.time_modeled ? "compiled and predicted, " : "compiled, ")
      << r.configs_pruned
      << " pruned by constraints before compiling, " << r.compile_cache_hits << " compile-cache hits, "
      << format("%.2f s", r.wall_seconds) << " wall\n";
  if (r.configs_not_compiled)
    out << "  " << r.configs_not_compiled << " more not compiled: even with no register limit the model predicts them "
        << "slower than the " << r.exact_top << " best (--record predicts every one)\n";
  if (r.bound_violated)
    out << "  note: the model predicted a candidate faster than its no-register-limit bound, so every candidate "
           "was compiled\n";
  if (!r.stop_reason.empty()) out << "  search stopped: " << r.stop_reason << "\n";
  out << "\n";
  if (!r.measured && !r.time_modeled) {
    print_occupancy_rows(out, r, top);
    print_failures(out, r);
    return;
  }

  std::size_t config_width = 6;
  const auto rank = r.ranking();
  for (std::size_t i = 0; i < rank.size() && i < top; ++i)
    config_width = std::max(config_width, r.space.format(r.evaluations[rank[i]].config).size());

  out << pad("rank", 5) << pad("config", config_width + 2) << pad(r.measured ? "time us" : "pred us", 10, true) << pad("+-%", 7, true)
      << pad("GB/s", 8, true) << pad(r.measured ? "%ceil" : "%peak", 7, true) << pad("regs", 6, true) << pad("smem B", 8, true)
      << pad("warps/SM", 10, true) << "\n";
  for (std::size_t i = 0; i < rank.size() && i < top; ++i) {
    const Evaluation& e = r.evaluations[rank[i]];
    out << pad(std::to_string(i + 1), 5) << pad(r.space.format(e.config), config_width + 2)
        << pad(format("%.2f", e.timing->median_s * 1e6), 10, true) << pad(format("%.1f", e.timing->spread * 100), 7, true)
        << pad(format("%.0f", e.gbps), 8, true)
        << pad(format("%.1f", (r.measured ? e.fraction_of_ceiling : e.fraction_of_peak) * 100), 7, true)
        << pad(std::to_string(e.resources.registers), 6, true)
        << pad(std::to_string(e.resources.static_smem_bytes + e.dynamic_smem_bytes), 8, true)
        << pad(std::to_string(e.occupancy.warps_per_sm) + "/" + std::to_string(e.occupancy.max_warps_per_sm), 10, true)
        << "\n";
  }

  if (const Evaluation* best = r.best()) {
    out << "\nbest: " << r.space.format(best->config) << "\n";
    out << "why:  " << rationale(r) << "\n";
    const auto order = r.ranking();
    if (order.size() > 1) out << "\nrunner-ups:\n";
    for (std::size_t i = 1; i < order.size() && i < 4; ++i)
      out << "  " << (i + 1) << ". " << describe_candidate(r, r.evaluations[order[i]]) << "\n";
  } else {
    out << "\nno configuration succeeded.\n";
  }

  print_failures(out, r);
}

namespace {

void print_failures(std::ostream& out, const TuningResult& r) {
  const auto failures = r.failure_counts();
  if (!failures.empty()) {
    out << "\nfailures:";
    for (const auto& [status, count] : failures) out << " " << to_string(status) << "=" << count;
    out << "\n";
    std::map<Status, int> shown;
    for (const auto& e : r.evaluations) {
      if (e.ok() || shown[e.status]++ >= 3) continue;
      out << "  " << to_string(e.status) << ": " << r.space.format(e.config) << ": " << e.reason << "\n";
    }
  }
  if (!r.aborted.empty()) out << "\n" << r.aborted << "\n";
}

} // namespace

} // namespace memtune::cli
