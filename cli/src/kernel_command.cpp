#include "kernel_command.hpp"

#include <memtune/output/tuning_recording.hpp>

#include "app.hpp"
#include "option_checks.hpp"
#include "output_options.hpp"
#include "report_command.hpp"
#include "shard_option.hpp"
#include "transfer_options.hpp"
#include "tune_progress.hpp"

#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/measure/energy_meter.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/tune/tuner.hpp>
#include <memtune/output/tuning_document.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace memtune::cli {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A success when the run ranked something (or, for a kernel whose time is not
// modeled, compiled something that fits) and was not aborted.
int exit_code(const TuningResult& result) {
  if (empty_shard(result)) return kExitOk; // a valid, empty part of the space: the other shards hold it all
  if (!result.measured && !result.time_modeled) {
    // Registers and occupancy only: a success when something compiled and fits.
    const bool any = std::any_of(result.evaluations.begin(), result.evaluations.end(),
                                 [](const Evaluation& e) { return e.ok(); });
    return any && result.aborted.empty() ? kExitOk : kExitError;
  }
  if (!result.best()) return kExitError;
  return result.aborted.empty() ? kExitOk : kExitError;
}

} // namespace

void add_tuning_options(CLI::App& sub, CommonOptions& o, const std::vector<std::string>& baselines) {
  sub.add_option("--strategy", o.strategy, "search strategy: grid, random, bayes")
      ->check(CLI::IsMember(search::strategy_names()))
      ->capture_default_str();
  sub.add_option("--patience", o.patience, "stop after this many candidates without a new best (0: never)")
      ->check(whole_number());
  sub.add_option("--budget", o.budget, "evaluate at most this many candidates (0: no limit)")->check(whole_number());
  sub.add_option("--time-budget", o.time_budget, "stop proposing candidates after this many seconds")->check(seconds());
  sub.add_option("--seed", o.seed, "seed for data and search randomness")->capture_default_str()->check(whole_number());
  sub.add_option("--device", o.device, "CUDA device ordinal")
      ->capture_default_str()
      ->check(whole_number(1023))
      ->each([&o](const std::string&) { o.device_given = true; });
  add_devices_options(sub, o.devices);
  sub.add_option("--target", o.target, "GPU to tune for: local (measured) or a name from `memtune targets` (modeled)")
      ->capture_default_str()
      ->transform(local_target_name());
  sub.add_flag("--predict", o.predict,
               "model --target NAME even when that GPU is in this machine (to compare the model with a measured run)");
  sub.add_flag("--warm", o.warm, "keep caches warm between samples (default: flush L2 before each)");
  sub.add_option("--objective", o.objective,
                 "what the search minimises: time (per launch), energy (joules per launch, measured with NVML) or "
                 "edp (joules x seconds); energy and edp cost seconds per candidate (docs/energy.md)")
      ->check(CLI::IsMember({"time", "energy", "edp"}))
      ->capture_default_str()
      ->each([&o](const std::string&) { o.objective_given = true; });
  sub.add_flag("--energy", o.energy, "also measure every candidate's joules per launch and mean watts (ranked by --objective)");
  sub.add_option("--energy-repeats", o.energy_repeats, "batches measured per candidate for its energy (median and spread)")
      ->check(CLI::Range(3, 1000))
      ->capture_default_str();
  sub.add_option("--l2-flush", o.l2_flush,
                 "how the L2 is flushed before a cold sample: clean (read a buffer of 2x L2) or dirty (write it, "
                 "the older protocol: its write-back is charged to the kernel)")
      ->check(CLI::IsMember({"clean", "dirty"}))
      ->capture_default_str();
  add_format_options(sub, o.format, &o.json);
  add_table_option(sub, o.table);
  sub.add_option("--save", o.save, "add/update this run's best configuration in a JSON profile store");
  sub.add_option("--record", o.record, "write every candidate's time or failure (for replayed search)");
  sub.add_option("--report", o.report, "write an HTML report of the run (memtune report) at the end");
  sub.add_option("--top", o.top, "rows of the ranked table (the best is always row 1)")
      ->capture_default_str()
      ->check(whole_number())
      ->check(CLI::Validator(
          [](std::string& text) { return text.find_first_not_of('0') == std::string::npos ? "'" + text + "': at least 1" : std::string(); },
          "N >= 1", "at least one row"));
  sub.add_option("--cache-dir", o.cache_dir, "compile cache folder (default: $MEMTUNE_CACHE_DIR or ~/.cache/memtune)");
  sub.add_flag("--no-cache", o.no_cache, "compile everything, read and write no cache");
  sub.add_flag("--no-model-prior", o.no_model_prior,
               "bayes on the local GPU: search without the analytical model's prediction as the prior mean");
  sub.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  add_shard_option(sub, o.shard);
  add_transfer_options(sub, o.transfer);
  sub.add_option("--only", o.only, "fix an axis to one value, AXIS=VALUE (repeatable): e.g. measure one configuration under ncu")
      ->delimiter(',');
  sub.add_option("--compare", o.compare,
                 "also time a baseline in the same run and show the ratio (" +
                     (baselines.empty() ? std::string("this kernel has none") : "known: " + join(baselines)) + ")");
  add_survival_options(sub, o.survival);
}

TuneOptions tune_options(const KernelDescription& kernel, const CommonOptions& o, std::optional<ProgressLine>& progress,
                         std::ostream& err) {
  try {
    kernel.check_baseline_names(o.compare);
  } catch (const std::invalid_argument& e) {
    throw ArgumentError("--compare", e.what());
  }

  TuneOptions t;
  t.compare = o.compare;
  t.strategy = o.strategy;
  t.budget = o.budget;
  t.patience = o.patience;
  t.time_budget_s = o.time_budget;
  t.seed = o.seed;
  t.device = o.device;
  t.measure.flush_l2 = !o.warm;
  t.measure.flush = o.l2_flush == "dirty" ? FlushKind::dirty : FlushKind::clean;
  // A description's "objective" is its default; --objective overrides it.
  t.objective = objective_from_string(o.objective_given || kernel.objective.empty() ? o.objective : kernel.objective);
  t.measure.energy.enabled = o.energy || needs_energy(t.objective);
  t.measure.energy.repeats = o.energy_repeats;
  t.use_cache = !o.no_cache;
  t.only = parse_only(o.only);
  t.model_prior = !o.no_model_prior;
  apply_survival_options(t, o.survival, o.record);
  check_output_files(o.record, o.save, o.report, t.journal.file ? t.journal.file->string() : std::string{},
                     !o.survival.resume.empty() ? "--resume" : !o.survival.journal.empty() ? "--journal" : "--record's journal");
  apply_devices_options(t, o.devices, o.device_given, o.survival.no_isolation);
  apply_shard(t, o.shard, !o.save.empty());
  apply_transfer_options(t, o.transfer, o.target != "local");
  // A modeled grid compiles only what can reach the table; a recording needs every prediction.
  t.exact_top = o.record.empty() ? std::max<std::size_t>(o.top, 1) : 0;
  if (!o.cache_dir.empty()) t.cache_folder = o.cache_dir;
  if (!o.quiet) attach_progress(t, progress.emplace(err, stderr_is_terminal(err)));
  return t;
}

std::vector<TuningResult> run_tuning(const KernelDescription& kernel, const Problem& problem, const CommonOptions& o,
                                     const TuneOptions& t) {
  std::vector<TuningResult> results;
  // "local" goes straight to tune(): with isolation, this process never
  // initialises CUDA (the worker does, and says when there is no GPU).
  if (o.target == "local") {
    if (o.predict) throw ArgumentError("--predict", "needs --target NAME, a GPU from `memtune targets` (local is measured)");
    if (o.devices.mixed) results = tune_each_model(kernel, problem, t);
    else results.push_back(tune(kernel, problem, t));
  } else {
    if (t.devices) throw ArgumentError("--devices " + o.devices.devices + " --target " + o.target,
                                       "--devices measures on this host's GPUs (--target local)");
    const ResolvedTarget target = resolve_target(o.target, o.device, o.predict);
    if (!target.measured && t.measure.energy.enabled)
      throw ArgumentError(needs_energy(t.objective) ? "--objective " + std::string(to_string(t.objective)) : std::string("--energy"),
                          "energy is measured on the local GPU, never modeled (--target " + o.target + " is modeled)");
    results.push_back(target.measured ? tune(kernel, problem, t) : tune_modeled(kernel, problem, target.target, t));
  }
  return results;
}

void write_run_files(const KernelDescription& kernel, const TuningResult& result, const CommonOptions& o,
                     const TuneOptions& t, const RunFiles& files, bool table, std::ostream& out, std::ostream& err) {
  if (!files.record.empty()) {
    search::save_recording(to_recording(result), files.record);
    // The journal was named after the --record given, before its model suffix.
    finish_record_journal(t, o.survival, o.record, result, files.per_model);
    if (files.per_model && table) out << "recorded to " << files.record << "\n";
  }
  if (!files.report.empty()) write_run_report(result, files.report);
  if (!o.save.empty() && result.best()) {
    ProfileStore store(o.save); // entries are keyed by GPU model already
    store.save(make_profile_entry(result, files.runner_ups, files.keep));
    if (table && !files.quiet_save) out << "\nsaved to " << o.save << "\n";
  } else if (!o.save.empty()) {
    err << "memtune " << kernel.name << ": --save " << o.save << ": nothing saved, no configuration "
        << (result.measured || result.time_modeled ? "succeeded" : "has a time (its time is not modeled)") << "\n";
  }
}

int run_exit_code(const TuningResult& result) { return exit_code(result); }

int run_kernel(const KernelDescription& kernel, const Problem& problem, const CommonOptions& o, std::ostream& out,
               std::ostream& err) {
  check_table_option(o.table, chosen_format(o.format, o.json), kTuningTables);
  std::optional<ProgressLine> progress;
  const TuneOptions t = tune_options(kernel, o, progress, err);

  std::vector<TuningResult> results;
  try {
    results = run_tuning(kernel, problem, o, t);
    if (progress) {
      std::string summary;
      for (const TuningResult& r : results) summary += (summary.empty() ? "" : "; ") + run_summary(r);
      progress->finish(summary);
    }
  } catch (const DeviceRequired& e) {
    err << "memtune " << kernel.name << ": " << e.what()
        << ". Use --target NAME to predict for a GPU that is not here (memtune targets lists them).\n";
    return kExitNoDevice;
  } catch (const EnergyUnavailable& e) {
    err << "memtune " << kernel.name << ": " << (needs_energy(t.objective) ? "--objective " + std::string(to_string(t.objective)) : "--energy")
        << ": " << e.what() << "\n";
    return kExitEnergyRefused;
  }

  const output::Format format = chosen_format(o.format, o.json);
  const bool per_model = results.size() > 1;
  if (per_model && format == output::Format::json) {
    nlohmann::json all = nlohmann::json::array(); // one document per GPU model
    for (const TuningResult& r : results)
      all.push_back(output::to_json(to_document(r, o.top, kernel.hooks.explain ? kernel.hooks.explain(r) : "")));
    out << all.dump(2) << "\n";
  } else if (per_model && format == output::Format::table) {
    out << "--mixed-devices: " << results.size() << " GPU models, each tuned on its own GPUs, one ranking each\n\n";
  }
  int code = kExitOk;
  for (const TuningResult& result : results) {
    // Each model's files carry its name: a recording or report holds one GPU model.
    const auto file_for = [&](const std::string& file) {
      return per_model && !file.empty() ? path_for_model(file, result.device).string() : file;
    };
    if (!(per_model && format == output::Format::json)) {
      const std::string note = kernel.hooks.explain ? kernel.hooks.explain(result) : std::string{};
      const output::Document document = to_document(result, o.top, note);
      if (!output::print(out, document, format, o.table)) {
        // The run's files are still written below; only stdout lacks the table.
        err << "memtune " << kernel.name << ": --table " << o.table << ": this run has no such table (it has "
            << output::table_keys(document) << ")\n";
        code = std::max(code, kExitUsage);
      }
      if (per_model) out << "\n";
    }
    RunFiles files;
    files.record = file_for(o.record);
    files.report = file_for(o.report);
    files.per_model = per_model;
    write_run_files(kernel, result, o, t, files, format == output::Format::table, out, err);
    code = std::max(code, exit_code(result));
    if (!result.objective_refused.empty()) {
      err << "memtune " << kernel.name << ": --objective " << to_string(t.objective) << ": " << result.objective_refused
          << " (the table ranks by time)\n";
      code = std::max(code, kExitEnergyRefused);
    }
  }
  return code;
}

} // namespace memtune::cli
