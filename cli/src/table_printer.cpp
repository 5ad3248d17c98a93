#include "table_printer.hpp"

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

} // namespace

void print_table(std::ostream& out, const TuningResult& r, std::size_t top) {
  out << "memtune " << r.template_name << " " << format_problem(r.problem, r.problem_parameters) << " "
      << (r.measured ? "measured on " : "MODELED for ") << r.device.name << " (sm_" << r.device.cc_major
      << r.device.cc_minor << ", " << r.device.sm_count << " SMs), strategy " << r.strategy
      << (r.search_prior.empty() ? "" : " (prior mean: " + r.search_prior + ")") << "\n";
  if (!r.measured) {
    if (!r.transferred_from.empty())
      out << "  TRANSFERRED: the measured times of " << r.transferred_from
          << ", each scaled by the model's ratio between the two GPUs for that configuration (target \""
          << r.target_name << "\")\n";
    else
      out << "  predicted by the analytical model, not measured (target \"" << r.target_name << "\")\n";
    out << "  registers from " << (r.compiler.empty() ? std::string("NVRTC") : r.compiler) << " for sm_"
        << r.compiled_for_cc;
    if (!r.compiler_note.empty()) out << " (" << r.compiler_note << ")";
    else if (r.compiled_for_cc != r.device.cc_major * 10 + r.device.cc_minor)
      out << ", the nearest architecture this NVRTC supports";
    out << "\n";
  }
  if (!r.shard.empty()) out << "  " << r.shard << "; the other shards' jobs run the rest\n";
  for (const auto& p : r.space.pruned()) out << "  axis " << p.name << " pruned: " << p.reason << "\n";
  if (r.ceiling)
    out << "  copy ceiling: " << format("%.0f GB/s", r.ceiling->gbps) << " (device-to-device copy of "
        << r.ceiling->bytes / (1 << 20) << " MiB, " << (r.ceiling->timing.cold ? "L2 flushed" : "warm L2")
        << ", median of " << r.ceiling->timing.samples << ")\n";
  out << "  " << r.evaluations.size() << " configurations " << (r.measured ? "evaluated, " : "compiled and predicted, ")
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

} // namespace memtune::cli
