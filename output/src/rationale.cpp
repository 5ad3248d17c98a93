// The words behind a pick: the numbers a CUDA engineer checks with Nsight
// Compute (warps/SM and their limiter, bank-conflict ways, sector efficiency,
// GB/s against peak and ceiling), and why the best beats the runner-up.
#include <memtune/output/tuning_result.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace memtune {
namespace {

std::string fmt(const char* format, double a) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

// One SM's occupancy, and where the grid has fewer blocks than the GPU's
// block slots, what the launch leaves: the calculator's warps/SM are then a
// limit the grid never reaches (the CUDA samples' <<<64, 256>>> copy).
std::string occupancy_text(const TuningResult& r, const Evaluation& e) {
  std::string s = e.occupancy.describe();
  if (e.driver_blocks_per_sm >= 0 && e.driver_blocks_per_sm != e.occupancy.blocks_per_sm)
    s += " (the driver reports " + std::to_string(e.driver_blocks_per_sm) + " blocks/SM)";
  const std::uint64_t sms = r.device.sm_count > 0 ? static_cast<std::uint64_t>(r.device.sm_count) : 0;
  const std::uint64_t per_sm = e.occupancy.blocks_per_sm > 0 ? static_cast<std::uint64_t>(e.occupancy.blocks_per_sm) : 0;
  if (e.grid_blocks == 0 || sms == 0 || per_sm == 0 || e.grid_blocks >= sms * per_sm) return s;
  const std::uint64_t busiest = (e.grid_blocks + sms - 1) / sms;
  const std::uint64_t warps = busiest * static_cast<std::uint64_t>(e.occupancy.warps_per_block);
  s += "; but the grid has " + std::to_string(e.grid_blocks) + (e.grid_blocks == 1 ? " block" : " blocks") + " for " +
       std::to_string(sms) + " SMs: ";
  if (e.grid_blocks < sms)
    s += std::to_string(e.grid_blocks) + " SMs hold one block (" + std::to_string(warps) + " warps), " +
         std::to_string(sms - e.grid_blocks) + " are idle";
  else
    s += "at most " + std::to_string(busiest) + (busiest == 1 ? " block (" : " blocks (") + std::to_string(warps) +
         " warps) an SM";
  return s;
}

std::string conflicts_text(const ModelBreakdown& m) {
  if (m.worst_conflict_ways <= 1) return "shared memory conflict-free";
  return std::to_string(m.worst_conflict_ways) + "-way bank conflicts in \"" + m.worst_conflict_instruction + "\" (" +
         fmt("%.3g", static_cast<double>(m.smem_wavefronts)) + " wavefronts where " +
         fmt("%.3g", static_cast<double>(m.smem_ideal_wavefronts)) + " would do)";
}

std::string bandwidth_text(const TuningResult& r, const Evaluation& e) {
  // Three significant digits below 10 GB/s: a problem of a few bytes moves
  // 0.0153 GB/s, not "0 GB/s".
  const auto gbps = [](double v) { return fmt(v < 10 ? "%.3g GB/s" : "%.0f GB/s", v); };
  std::string s = gbps(e.gbps);
  if (r.peak_dram_gbs > 0) s += " = " + fmt("%.0f%%", 100.0 * e.fraction_of_peak) + " of the " +
                                fmt("%.0f GB/s", r.peak_dram_gbs) + " peak";
  if (r.measured && r.ceiling) s += ", " + fmt("%.1f%%", 100.0 * e.fraction_of_ceiling) + " of the copy ceiling (" +
                                    fmt("%.0f GB/s", r.ceiling->gbps) + ") measured in this run";
  // The driver's copy of the same bytes is a ceiling only while the kernel
  // stays under it: a grid-stride copy measured 105.5 % of it on an H200 at
  // 47.7 MiB. Beyond the spread a few-microsecond launch shows (5 %), say so.
  const double same = e.fraction_of_same_size_copy;
  if (r.measured && r.same_size_copy && same > 0)
    s += ", " + fmt("%.1f%%", 100.0 * same) + " of a copy of the same bytes (" + gbps(r.same_size_copy->gbps) + ")" +
         (same > 1.05  ? ": faster than that copy, which is no ceiling at this size"
          : same >= 0.9 ? ": the size, not the kernel, is the limit"
                        : "");
  return s;
}

// The most telling difference between the best and the runner-up.
// The runner-up by an energy objective: how much more it costs, and whether
// the batches' spread covers that.
std::string why_better_objective(const TuningResult& r, const Evaluation& best, const Evaluation& next) {
  const Objective by = r.ranked_by();
  const auto b = objective_value(best, by);
  const auto n = objective_value(next, by);
  if (!b || !n || !(*b > 0)) return "";
  const double gain = *n / *b - 1.0;
  std::string s = "The runner-up (" + r.space.format(next.config) + ") costs " + fmt("%.1f%%", 100 * gain) + " more " +
                  (by == Objective::energy ? "joules per launch" : "energy-delay product");
  if (best.energy && next.energy && gain < 2.0 * std::max(best.energy->spread, next.energy->spread))
    return s + ", within the energy measurements' spread: the two are equivalent on this GPU.";
  return s + ".";
}

std::string why_better(const TuningResult& r, const Evaluation& best, const Evaluation& next) {
  const double gain = next.timing->median_s / best.timing->median_s - 1.0;
  const std::string slower = "The runner-up (" + r.space.format(next.config) + ") is " + fmt("%.1f%%", 100 * gain) +
                             (r.measured                       ? " slower"
                              : r.transferred_from.empty()     ? " slower by the model"
                              : " slower by the transferred times");
  if (r.measured && gain < 2.0 * std::max(best.timing->spread, next.timing->spread))
    return slower + ", within the measurement spread: the two are equivalent on this GPU.";
  if (!r.measured && gain == 0.0 && best.model && next.model) {
    const model::BoundTime* b = best.model->time.runner_up();
    const model::BoundTime* n = next.model->time.runner_up();
    if (b && n && b->bound == n->bound && b->seconds == n->seconds)
      return "The runner-up (" + r.space.format(next.config) + ") ties with it by the model (" +
             to_string(best.model->time.binding) + "-bound), and so does the next bound (" + to_string(b->bound) + " " +
             fmt("%.4g us", b->seconds * 1e6) + " for both): the model does not separate them, this one comes first "
             "in the grid's order; measure them to choose.";
    if (b && n)
      return "The runner-up (" + r.space.format(next.config) + ") ties with it by the model (" +
             to_string(best.model->time.binding) + "-bound); this one ranks first because its next bound is further "
             "below: " + to_string(b->bound) + " " + fmt("%.4g us", b->seconds * 1e6) + " against " +
             to_string(n->bound) + " " + fmt("%.4g us", n->seconds * 1e6) +
             " (the max of the bounds assumes they overlap perfectly; the closer the next one, the less they do).";
  }
  if (best.model && next.model) {
    const ModelBreakdown& b = *best.model;
    const ModelBreakdown& n = *next.model;
    if (n.worst_conflict_ways > b.worst_conflict_ways)
      return slower + ": its \"" + n.worst_conflict_instruction + "\" has " + std::to_string(n.worst_conflict_ways) +
             "-way bank conflicts (" + std::to_string(b.worst_conflict_ways) + "-way here).";
    if (n.sector_efficiency() < b.sector_efficiency() - 0.05)
      return slower + ": its global accesses use " + fmt("%.0f%%", 100 * n.sector_efficiency()) +
             " of the sectors they move (" + fmt("%.0f%%", 100 * b.sector_efficiency()) + " here).";
    const double inflight_b = b.time.bytes_in_flight_per_sm, inflight_n = n.time.bytes_in_flight_per_sm;
    if (inflight_b > 1.2 * inflight_n)
      return slower + ": it keeps " + fmt("%.0f KiB", inflight_b / 1024) + " of loads in flight per SM against " +
             fmt("%.0f KiB", inflight_n / 1024) + ", and by Little's law bandwidth follows bytes in flight.";
    if (best.occupancy.warps_per_sm > next.occupancy.warps_per_sm)
      return slower + ": it runs " + std::to_string(best.occupancy.warps_per_sm) + " warps/SM against " +
             std::to_string(next.occupancy.warps_per_sm) + ", hiding more memory latency.";
    const auto issue = [](const ModelBreakdown& m) { return m.time.bound(model::Bound::issue).seconds; };
    if (issue(n) > 1.1 * issue(b))
      return slower + ": it issues " + fmt("%.0f%%", 100 * (issue(n) / issue(b) - 1)) +
             " more instructions for the same outputs.";
    // The knee (TimeModelParams::knee_exponent): the same memory time, but
    // the runner-up's dependent round trips come close to it.
    const auto pipeline_share = [](const ModelBreakdown& m) {
      const model::BoundTime& p = m.time.bound(model::Bound::block_pipeline);
      const double memory = m.time.memory_seconds();
      return p.modelled && memory > 0 ? p.seconds / memory : 0.0;
    };
    const double share_n = pipeline_share(n), share_b = pipeline_share(b);
    if (share_n >= 0.8 && share_n > share_b + 0.1)
      return slower + ": its blocks' dependent memory round trips (block pipeline " +
             fmt("%.4g us", n.time.bound(model::Bound::block_pipeline).seconds * 1e6) + ") take " +
             fmt("%.0f%%", 100 * share_n) + " of its memory time (" + fmt("%.4g us", n.time.memory_seconds() * 1e6) +
             "), where the two overlap imperfectly; here they take " + fmt("%.0f%%", 100 * share_b) + ".";
  }
  return slower + ".";
}

} // namespace

std::string describe_candidate(const TuningResult& r, const Evaluation& e) {
  std::string s = r.space.format(e.config) + ": " + occupancy_text(r, e);
  if (e.model) s += "; " + conflicts_text(*e.model) + "; " + fmt("%.0f%%", 100 * e.model->sector_efficiency()) +
                    " sector efficiency";
  if (e.timing) s += "; " + bandwidth_text(r, e);
  return s;
}

std::string rationale(const TuningResult& r) {
  const auto rank = r.ranking();
  if (rank.empty()) return {};
  const Evaluation& best = r.evaluations[rank.front()];
  std::string s = r.space.format(best.config) + ": " + fmt("%.1f us", best.timing->median_s * 1e6) +
                  (r.measured ? " measured" : r.transferred_from.empty() ? " predicted" : " transferred") + ", " +
                  bandwidth_text(r, best) + ". ";
  if (best.energy)
    s += fmt("%.4g mJ per launch", best.energy->joules_per_launch * 1e3) +
         fmt(" (+-%.1f%%", 100 * best.energy->spread) + fmt(" over %.0f batches", best.energy->repeats) +
         fmt(", %.0f W mean). ", best.energy->mean_watts);
  // What the objective's pick costs in the other measure, against the fastest measured.
  if (r.ranked_by() != Objective::time) {
    if (const Evaluation* fastest = r.fastest(); fastest && fastest != &best)
      s += std::string("Picked for ") + to_string(r.ranked_by()) + ": " + tradeoff(best, *fastest) + ". ";
    else
      s += std::string("The ") + to_string(r.ranked_by()) + "-best is also the fastest. ";
  }
  s += std::to_string(best.resources.registers) + " registers/thread";
  if (!r.measured)
    s += " (compiled for sm_" + std::to_string(r.compiled_for_cc) + (r.compiler.empty() ? "" : " by " + r.compiler) + ")";
  s += ", " + std::to_string(best.dynamic_smem_bytes + best.resources.static_smem_bytes) +
       " bytes of shared memory/block; " + occupancy_text(r, best) + ".";
  if (best.resources.spills()) s += " It spills registers to local memory.";
  if (best.model) {
    const ModelBreakdown& m = *best.model;
    s += " " + conflicts_text(m) + "; global accesses use " + fmt("%.0f%%", 100 * m.sector_efficiency()) +
         " of the sectors they move; " + fmt("%.3g MB", m.dram_bytes / 1e6) + " of DRAM traffic. Model: " +
         m.time.describe() + ".";
  }
  if (rank.size() > 1)
    s += " " + (r.ranked_by() == Objective::time ? why_better(r, best, r.evaluations[rank[1]])
                                                  : why_better_objective(r, best, r.evaluations[rank[1]]));
  return s;
}

} // namespace memtune
