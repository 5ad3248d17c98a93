#include <memtune/io/number_text.hpp>
#include <memtune/output/printer.hpp>
#include <memtune/output/tuning_document.hpp>
#include <memtune/search/constraint_census.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace memtune {
namespace {

std::string title(const TuningResult& r) {
  return "memtune " + r.template_name + " " + format_problem(r.problem, r.problem_parameters) + " " +
         (r.measured ? "measured on " : "MODELED for ") + r.device.name + " (sm_" + std::to_string(r.device.cc_major) +
         std::to_string(r.device.cc_minor) + ", " + std::to_string(r.device.sm_count) + " SMs), strategy " + r.strategy +
         (r.search_prior.empty() ? "" : " (prior mean: " + r.search_prior + ")");
}

// The compiler that built the candidates: the run's (NVRTC, or a loaded one),
// unless the kernel's candidates were compiled by nvcc (compiler.hpp).
std::string candidates_compiler(const TuningResult& r) {
  for (const Evaluation& e : r.evaluations)
    if (e.ok() && !e.compiler.empty()) return e.compiler;
  return r.compiler.empty() ? std::string("NVRTC") : r.compiler;
}

// "registers from NVRTC 11.8 (/path) for sm_35", with why the architecture is
// not the target's where it is not.
std::string registers_source(const TuningResult& r) {
  std::string s = "registers from " + candidates_compiler(r) + " for sm_" +
                  std::to_string(r.compiled_for_cc);
  if (!r.compiler_note.empty())
    s += " (" + r.compiler_note + ")";
  else if (r.compiled_for_cc != r.device.cc_major * 10 + r.device.cc_minor)
    s += " (sm_" + std::to_string(r.compiled_for_cc) + " is the nearest architecture this NVRTC supports)";
  return s;
}

// "measured on 2 GPUs, one worker each: GPU 0 150 candidates, GPU 1 138 (one
// copy ceiling: the GPUs are one model)"
std::string devices_text(const TuningResult& r) {
  std::map<int, int> counts;
  for (int d : r.devices) counts[d] = 0;
  for (const Evaluation& e : r.evaluations)
    if (e.device >= 0) ++counts[e.device];
  std::string s = "measured on " + std::to_string(r.devices.size()) + " GPUs, one worker each, candidates to whichever is idle:";
  bool first = true;
  for (int d : r.devices) {
    s += std::string(first ? " " : ", ") + "GPU " + std::to_string(d) + " " + std::to_string(counts[d]) +
         (first ? " candidates" : "");
    first = false;
  }
  return s + " (one copy ceiling, measured on GPU " + std::to_string(r.devices.front()) + ": the GPUs are one model)";
}

// How the joules were measured, from the first candidate that has them (one
// meter per run: its resolution and period are the GPU's), and the objective.
void add_energy_facts(output::Document& d, const TuningResult& r) {
  if (r.objective != Objective::time)
    d.fact(std::string("objective: ") + to_string(r.objective) +
           (r.objective == Objective::energy ? " (joules per launch)" : " (joules per launch x seconds per launch)"));
  if (!r.objective_refused.empty()) d.fact("REFUSED: " + r.objective_refused + "; ranked by time instead");
  if (!r.energy_measured) return;
  const Evaluation* with = nullptr;
  std::size_t measured = 0;
  std::string error;
  for (const Evaluation& e : r.evaluations) {
    if (e.energy) {
      ++measured;
      if (!with) with = &e;
    }
    if (error.empty() && !e.energy_error.empty()) error = e.energy_error;
  }
  if (!with) {
    d.fact("energy: not measured" + (error.empty() ? std::string() : ": " + error));
    return;
  }
  const EnergyMeasurement& m = *with->energy;
  d.data["energy_method"] = {{"source", to_string(m.source)},
                             {"resolution_j", m.resolution_j},
                             {"period_s", m.period_s},
                             {"repeats", m.repeats},
                             {"launches_per_batch_first", m.launches_per_batch},
                             {"batch_seconds_first", m.batch_seconds},
                             {"idle_watts_first", m.idle_watts},
                             {"candidates_measured", measured}};
  d.fact(std::string("energy: NVML ") +
         (m.source == EnergySource::counter ? "total-energy counter" : "power readings integrated (no energy counter)") +
         ", " + number_text("step %.4g mJ", m.resolution_j * 1e3) + number_text(" every %.1f ms", m.period_s * 1e3) +
         " (measured); " + std::to_string(m.repeats) + " batches of warm back-to-back launches per candidate (" +
         std::to_string(m.launches_per_batch) + " launches, " + number_text("%.3g s", m.batch_seconds) +
         " for the first), median reported; idle " + number_text("%.0f W", m.idle_watts) +
         " measured just before and subtracted outside the batches; " + std::to_string(measured) + " of " +
         std::to_string(r.evaluations.size()) + " candidates measured" + (error.empty() ? "" : " (" + error + ")"));
}

void add_facts(output::Document& d, const TuningResult& r) {
  if (!r.measured && !r.time_modeled) {
    d.fact("time is not modeled: " + r.template_name + " has no access pattern for the model (no \"model\" section); " + registers_source(r) +
           "; occupancy and its limiter from cuda_occupancy.h with the target's limits");
  } else if (!r.measured) {
    if (!r.transferred_from.empty())
      d.fact("TRANSFERRED: the measured times of " + r.transferred_from + ", " + r.transfer_scaling + " (target \"" +
             r.target_name + "\")");
    else
      d.fact("predicted by the analytical model, not measured (target \"" + r.target_name + "\")");
    d.fact(registers_source(r));
  }
  if (!r.model_figures.empty()) d.fact("model figures: " + r.model_figures);
  for (const auto& p : r.space.pruned()) d.fact("axis " + p.name + " pruned: " + p.reason);
  if (!r.shard.empty()) d.fact(r.shard + "; the other shards' jobs run the rest");
  if (r.measured && !r.isolation.empty()) {
    std::string s = "candidates launched in: " + r.isolation;
    if (r.worker_restarts)
      s += ", " + std::to_string(r.worker_restarts) + " replaced after a crash, a hang or a sticky error";
    d.fact(s);
  }
  if (r.measured && r.devices.size() > 1) d.fact(devices_text(r));
  if (!r.journal.empty()) d.fact(r.journal);
  auto copy_text = [](const CopyCeiling& c) {
    return number_text("%.0f GB/s", c.gbps) + " (device-to-device copy of " + number_text("%.3g", c.bytes / 1048576.0) +
           " MiB, " + (!c.timing.cold ? std::string("warm L2") : c.l2_flush.empty() ? std::string("L2 flushed") : "L2 flushed " + c.l2_flush) + ", median of " +
           std::to_string(c.timing.samples) + ")";
  };
  if (r.ceiling) d.fact("copy ceiling: " + copy_text(*r.ceiling));
  if (r.same_size_copy)
    d.fact("same-size copy: " + copy_text(*r.same_size_copy) + ", " +
           number_text("%.1f%%", 100.0 * r.same_size_copy->gbps / r.ceiling->gbps) +
           " of the ceiling: what this problem's size allows a copy");
  d.fact(std::to_string(r.evaluations.size()) + " configurations " +
         (r.measured ? "evaluated, " : r.time_modeled ? "compiled and predicted, " : "compiled, ") + std::to_string(r.configs_pruned) +
         " pruned by constraints before compiling, " + std::to_string(r.compile_cache_hits) + " compile-cache hits, " +
         number_text("%.2f s", r.wall_seconds) + " wall");
  if (nothing_valid(r))
    d.fact("no configuration is valid for this problem: " + search::constraint_census(r.space).describe());
  if (r.setup_times) d.fact(describe_setup_times(*r.setup_times));
  if (r.configs_not_compiled)
    d.fact(std::to_string(r.configs_not_compiled) +
           " more not compiled: even with no register limit the model predicts them slower than the " +
           std::to_string(r.exact_top) + " best (--record predicts every one)");
  if (r.bound_violated)
    d.fact("note: the model predicted a candidate faster than its no-register-limit bound, so every candidate was "
           "compiled");
  if (!r.stop_reason.empty()) d.fact("search stopped: " + r.stop_reason);
  if (const Evaluation* best = r.best()) {
    if (!best->compiler.empty() && best->compiler != r.compiler) d.fact("the best compiled by " + best->compiler);
    if (!best->compile_warnings.empty()) d.fact("compiler warnings for the best configuration:\n" + best->compile_warnings);
  }
  add_energy_facts(d, r);
}

void add_data(output::Document& d, const TuningResult& r) {
  nlohmann::json& j = d.data;
  j["template"] = r.template_name;
  j["kernel_fingerprint"] = r.kernel_fingerprint;
  j["problem"] = r.problem;
  j["device"] = r.device.to_json();
  j["target"] = r.target_name;
  j["mode"] = r.measured ? "measured" : "modeled";
  j["time_modeled"] = r.measured || r.time_modeled;
  j["compiled_for"] = "sm_" + std::to_string(r.compiled_for_cc);
  j["compiler"] = r.compiler;
  j["compiler_note"] = r.compiler_note;
  j["transferred_from"] = r.transferred_from;
  if (!r.transfer_scaling.empty()) j["transfer_scaling"] = r.transfer_scaling;
  j["peak_dram_gbps"] = r.peak_dram_gbs;
  if (!r.model_figures.empty()) j["model_figures"] = r.model_figures;
  j["strategy"] = r.strategy;
  // Absent: time, no energy (the documents of runs before energy was measured read the same).
  if (r.objective != Objective::time) j["objective"] = to_string(r.objective);
  if (!r.objective_refused.empty()) j["objective_refused"] = r.objective_refused;
  if (r.energy_measured) j["energy_measured"] = true;
  j["search_prior"] = r.search_prior;
  j["space"] = r.space.to_json();
  j["bytes_moved"] = r.bytes_moved;
  j["wall_seconds"] = r.wall_seconds;
  if (r.setup_times) j["setup"] = setup_times_json(*r.setup_times);
  j["evaluated"] = r.evaluations.size();
  j["pruned_by_constraints"] = r.configs_pruned;
  j["compile_cache_hits"] = r.compile_cache_hits;
  auto copy_json = [](const CopyCeiling& c) {
    return nlohmann::json{{"gbps", c.gbps},
                          {"bytes", c.bytes},
                          {"time_s", c.timing.median_s},
                          {"cold", c.timing.cold},
                          {"l2_flush", c.l2_flush.empty() ? "none" : c.l2_flush}};
  };
  if (r.ceiling) j["copy_ceiling"] = copy_json(*r.ceiling);
  if (r.same_size_copy) j["same_size_copy"] = copy_json(*r.same_size_copy);
  if (r.exact_top)
    j["model_bound"] = {{"exact_top", r.exact_top},
                        {"not_compiled", r.configs_not_compiled},
                        {"bound_violated", r.bound_violated}};
  if (!r.shard.empty()) j["shard"] = r.shard;
  if (r.measured && !r.isolation.empty()) j["isolation"] = {{"where", r.isolation}, {"worker_restarts", r.worker_restarts}};
  if (r.measured && !r.devices.empty()) j["devices"] = r.devices;
  if (!r.journal.empty()) j["journal"] = {{"note", r.journal}, {"resumed", r.resumed}};
  if (!r.stop_reason.empty()) j["stop_reason"] = r.stop_reason;
  if (!r.aborted.empty()) j["aborted"] = r.aborted;
  j["trials"] = trials_to_json(r);
  if (!r.measured && !r.time_modeled) {
    // Nothing is ranked: what the compiler said about each candidate is the result.
    nlohmann::json compiled = nlohmann::json::array();
    for (const auto& e : r.evaluations)
      if (e.ok()) compiled.push_back(evaluation_to_json(r.space, e));
    j["compiled"] = std::move(compiled);
  }
}

// A modeled grid ties wherever configurations sit at the same bound (the
// same bytes at the same bandwidth): say so, and show what orders them
// (ranking(): the runner-up bound, the lower first) as a column.
void say_ties(output::Document& d, output::Table& t, const TuningResult& r, const std::vector<std::size_t>& rank) {
  const std::size_t shown = std::min(rank.size(), t.rows.size());
  std::vector<std::string> groups;
  for (std::size_t i = 0; i < shown;) {
    std::size_t j = i + 1;
    const Evaluation& first = r.evaluations[rank[i]];
    while (j < rank.size() && r.evaluations[rank[j]].timing->median_s == first.timing->median_s) ++j;
    if (j - i > 1) {
      std::string g = std::to_string(j - i) + " configurations (ranks " + std::to_string(i + 1) + "-" +
                      std::to_string(j) + ") tie at " + number_text("%.2f us", first.timing->median_s * 1e6) +
                      (first.model ? " (" + std::string(model::to_string(first.model->time.binding)) + " bound)" : "");
      // Where the next bound ties too, the model cannot tell them apart: say
      // in what they differ, which a measurement would have to settle.
      bool next_ties = true;
      std::vector<std::string> differing;
      for (const auto& axis : r.space.axes()) {
        bool differs = false;
        for (std::size_t k = i + 1; k < j; ++k)
          differs |= r.evaluations[rank[k]].config.at(axis.name) != first.config.at(axis.name);
        if (differs) differing.push_back(axis.name);
      }
      for (std::size_t k = i + 1; k < j; ++k) {
        const model::BoundTime* a = first.model ? first.model->time.runner_up() : nullptr;
        const model::BoundTime* b = r.evaluations[rank[k]].model ? r.evaluations[rank[k]].model->time.runner_up() : nullptr;
        next_ties &= (a && b && a->seconds == b->seconds) || (!a && !b);
      }
      if (next_ties) {
        std::string axes;
        for (const auto& a : differing) axes += (axes.empty() ? "" : ", ") + a;
        g += ", the next bound too: the model does not separate them (they differ in " + axes + ")";
      }
      groups.push_back(g);
    }
    i = j;
  }
  if (groups.empty()) return;
  t.columns.push_back({.key = "next_bound_s", .header = "next us", .format = "%.2f", .scale = 1e6});
  for (std::size_t i = 0; i < shown; ++i) {
    const Evaluation& e = r.evaluations[rank[i]];
    const model::BoundTime* next = e.model ? e.model->time.runner_up() : nullptr;
    t.rows[i]["next_bound_s"] = next ? nlohmann::json(next->seconds) : nlohmann::json();
  }
  std::string s = "ties: ";
  for (std::size_t i = 0; i < groups.size(); ++i) s += (i ? "; " : "") + groups[i];
  d.paragraph(s + ". Within a tie the configuration whose next bound (\"next us\": the resource that would bind "
                  "after the first) is lower ranks first: it has the most headroom; an equal one keeps the grid's order.");
}

void add_ranked(output::Document& d, const TuningResult& r, std::size_t top) {
  output::Table& t = d.add_table("ranked");
  t.columns = {{.key = "rank", .header = "rank", .left = true},
               {.key = "config_text", .header = "config", .json = false},
               {.key = "time_s", .header = r.measured ? "time us" : "pred us", .format = "%.2f", .scale = 1e6},
               {.key = "spread", .header = "+-%", .format = "%.1f", .scale = 100},
               {.key = "gbps", .header = "GB/s", .format = "%.0f"},
               {.key = r.measured ? "fraction_of_ceiling" : "fraction_of_peak",
                .header = r.measured ? "%ceil" : "%peak",
                .format = "%.1f",
                .scale = 100},
               {.key = "registers", .header = "regs"},
               {.key = "smem_bytes", .header = "smem B", .json = false},
               {.key = "warps_text", .header = "warps/SM", .json = false}};
  // A problem smaller than the ceiling's copy: its own size's copy beside.
  if (r.same_size_copy)
    t.columns.insert(t.columns.begin() + 6, {.key = "fraction_of_same_size_copy", .header = "%same", .format = "%.1f", .scale = 100});
  // Energy, where it was measured: joules per launch, their spread, mean watts.
  if (r.energy_measured) {
    t.columns.insert(t.columns.begin() + 4, {.key = "joules_per_launch", .header = "mJ", .format = "%.3f", .scale = 1e3});
    t.columns.insert(t.columns.begin() + 5, {.key = "energy_spread", .header = "+-%J", .format = "%.1f", .scale = 100});
    t.columns.insert(t.columns.begin() + 6, {.key = "mean_watts", .header = "W", .format = "%.0f"});
  }
  // On several GPUs: which one measured it.
  if (r.devices.size() > 1) t.columns.push_back({.key = "device", .header = "gpu"});
  const auto rank = r.ranking();
  for (std::size_t i = 0; i < rank.size() && i < top; ++i) {
    const Evaluation& e = r.evaluations[rank[i]];
    nlohmann::json row = evaluation_to_json(r.space, e);
    row["rank"] = i + 1;
    row["config_text"] = r.space.format(e.config);
    row["smem_bytes"] = e.resources.static_smem_bytes + e.dynamic_smem_bytes;
    row["warps_text"] = std::to_string(e.occupancy.warps_per_sm) + "/" + std::to_string(e.occupancy.max_warps_per_sm);
    t.rows.push_back(std::move(row));
  }
  if (!r.measured) say_ties(d, t, r, rank);
}

// A kernel whose time is not modeled: its compiled candidates in evaluation
// order with registers, shared memory, warps/SM and what limits them; no ranking.
void add_occupancy(output::Document& d, const TuningResult& r, std::size_t top) {
  output::Table& t = d.add_table("occupancy");
  t.columns = {{.key = "config_text", .header = "config", .json = false},
               {.key = "registers", .header = "regs"},
               {.key = "smem_bytes", .header = "smem B"},
               {.key = "warps_text", .header = "warps/SM", .json = false},
               {.key = "limiter_text", .header = "limited by", .left = true}};
  std::size_t compiled = 0;
  for (const auto& e : r.evaluations) {
    if (!e.ok()) continue;
    if (++compiled > top) continue;
    nlohmann::json row = evaluation_to_json(r.space, e);
    row["config_text"] = r.space.format(e.config);
    row["smem_bytes"] = e.resources.static_smem_bytes + e.dynamic_smem_bytes;
    row["warps_text"] = std::to_string(e.occupancy.warps_per_sm) + "/" + std::to_string(e.occupancy.max_warps_per_sm);
    std::string limiters;
    for (model::Limiter l : e.occupancy.limiters) limiters += (limiters.empty() ? "" : ", ") + std::string(model::to_string(l));
    row["limiter_text"] = limiters;
    t.rows.push_back(std::move(row));
  }
  std::string s;
  if (compiled > top) s = "(" + std::to_string(compiled - top) + " more compiled; --top N shows more)\n";
  d.paragraph(s + not_modeled_advice(r.template_name));
}

void add_best(output::Document& d, const TuningResult& r, std::size_t top) {
  const Evaluation* best = r.best();
  if (!best) {
    d.paragraph(empty_shard(r)    ? "this shard holds no valid configuration of the space: an empty part, nothing to "
                                    "rank (the other shards hold the whole space)."
                : nothing_valid(r) ? "nothing ran: the constraints leave no configuration for this problem (above)."
                                   : "no configuration succeeded.");
    return;
  }
  d.data["best"] = evaluation_to_json(r.space, *best);
  d.data["rationale"] = rationale(r);
  const auto order = r.ranking();
  nlohmann::json facts = nlohmann::json::array();
  for (std::size_t i = 0; i < order.size() && i < std::min<std::size_t>(top, 5); ++i)
    facts.push_back(describe_candidate(r, r.evaluations[order[i]]));
  d.data["candidate_facts"] = facts;
  const std::string on_gpu =
      r.devices.size() > 1 && best->device >= 0 ? " (measured on GPU " + std::to_string(best->device) + ")" : "";
  d.paragraph("best: " + r.space.format(best->config) + on_gpu + "\nwhy:  " + rationale(r));
  if (order.size() > 1) {
    std::string s = "runner-ups:";
    for (std::size_t i = 1; i < order.size() && i < 4; ++i)
      s += "\n  " + std::to_string(i + 1) + ". " + describe_candidate(r, r.evaluations[order[i]]);
    d.paragraph(s);
  }
}

void add_failures(output::Document& d, const TuningResult& r) {
  output::Table& t = d.add_table("failures");
  t.text = false; // people get the summary paragraph below
  t.columns = {{.key = "status", .header = "status"},
               {.key = "config_text", .header = "config", .json = false},
               {.key = "reason", .header = "reason"}};
  for (const auto& e : r.evaluations) {
    if (e.ok()) continue;
    nlohmann::json row = evaluation_to_json(r.space, e);
    row["config_text"] = r.space.format(e.config);
    t.rows.push_back(std::move(row));
  }
  const auto counts = r.failure_counts();
  if (counts.empty()) return;
  std::string s = "failures:";
  for (const auto& [status, count] : counts) s += " " + std::string(to_string(status)) + "=" + std::to_string(count);
  std::map<Status, int> shown;
  for (const auto& e : r.evaluations) {
    if (e.ok() || shown[e.status]++ >= 3) continue;
    s += "\n  " + std::string(to_string(e.status)) + ": " + r.space.format(e.config) + ": " + e.reason;
  }
  d.paragraph(s);
}

void add_baselines(output::Document& d, const TuningResult& r) {
  if (r.baselines.empty()) return;
  output::Table& t = d.add_table("baselines");
  t.text = false;
  t.columns = {{.key = "name", .header = "name"},       {.key = "available", .header = "available"},
               {.key = "verified", .header = "verified"}, {.key = "time_s", .header = "time s"},
               {.key = "gbps", .header = "GB/s"},         {.key = "speedup_of_best", .header = "speedup of best"},
               {.key = "summary", .header = "summary"}};
  const Evaluation* best = r.best();
  std::string s = "compared in the same run (same timing protocol and verification):";
  for (const auto& b : r.baselines) {
    nlohmann::json jb{{"name", b.name},         {"description", b.description}, {"available", b.available},
                      {"verified", b.verified}, {"summary", describe_baseline(r, b)}};
    if (!b.message.empty()) jb["message"] = b.message;
    if (b.timing) {
      jb["time_s"] = b.timing->median_s;
      jb["spread"] = b.timing->spread;
      jb["samples"] = b.timing->samples;
      jb["gbps"] = b.gbps;
      jb["max_abs_error"] = b.max_abs_error;
      if (best) jb["speedup_of_best"] = b.timing->median_s / best->timing->median_s;
    }
    t.rows.push_back(std::move(jb));
    s += "\n  " + describe_baseline(r, b);
  }
  d.paragraph(s);
}

} // namespace

std::string not_modeled_advice(const std::string& kernel_name) {
  return "no ranking: the time of " + kernel_name +
         " is not modeled. Measure it on a GPU (--target local), or give its description a \"model\" section "
         "listing its memory accesses (docs/kernel-description.md, \"The model section\").";
}

output::Document to_document(const TuningResult& r, std::size_t top, const std::string& template_note) {
  output::Document d;
  d.title = title(r);
  add_data(d, r);
  add_facts(d, r);
  if (!r.measured && !r.time_modeled) {
    add_occupancy(d, r, top);
  } else {
    add_ranked(d, r, top);
    add_best(d, r, top);
  }
  add_failures(d, r);
  if (!r.aborted.empty()) d.paragraph(r.aborted);
  if (!template_note.empty()) {
    d.data["template_note"] = template_note;
    d.paragraph(r.template_name + ": " + template_note);
  }
  add_baselines(d, r);
  return d;
}

nlohmann::json to_json(const TuningResult& r, std::size_t top) { return output::to_json(to_document(r, top)); }

} // namespace memtune
