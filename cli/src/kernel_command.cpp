#include "kernel_command.hpp"

#include "app.hpp"
#include "recording.hpp"
#include "size_parse.hpp"
#include "table_printer.hpp"

#include <memtune/profile_store.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/targets.hpp>
#include <memtune/tuner.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace memtune::cli {
namespace {

void write_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

} // namespace

void add_tuning_options(CLI::App& sub, CommonOptions& o, const std::vector<std::string>& baselines) {
  sub.add_option("--strategy", o.strategy, "search strategy: grid, random, bayes")
      ->check(CLI::IsMember(search::strategy_names()))
      ->capture_default_str();
  sub.add_option("--patience", o.patience, "stop after this many candidates without a new best (0: never)");
  sub.add_option("--budget", o.budget, "evaluate at most this many candidates (0: no limit)");
  sub.add_option("--time-budget", o.time_budget, "stop proposing candidates after this many seconds");
  sub.add_option("--seed", o.seed, "seed for data and search randomness")->capture_default_str();
  sub.add_option("--device", o.device, "CUDA device ordinal")->capture_default_str();
  sub.add_option("--target", o.target, "GPU to tune for: local (measured) or a name from `memtune targets` (modeled)")
      ->capture_default_str();
  sub.add_flag("--warm", o.warm, "keep caches warm between samples (default: flush L2 before each)");
  sub.add_flag("--json", o.json, "machine-readable output on stdout");
  sub.add_option("--save", o.save, "add/update this run's best configuration in a JSON profile store");
  sub.add_option("--record", o.record, "write every candidate's time or failure (for replayed search)");
  sub.add_option("--top", o.top, "rows of the ranked table")->capture_default_str();
  sub.add_option("--cache-dir", o.cache_dir, "compile cache folder (default: $MEMTUNE_CACHE_DIR or ~/.cache/memtune)");
  sub.add_flag("--no-cache", o.no_cache, "compile everything, read and write no cache");
  sub.add_flag("--no-model-prior", o.no_model_prior,
               "bayes on the local GPU: search without the analytical model's prediction as the prior mean");
  sub.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  sub.add_option("--only", o.only, "fix an axis to one value, AXIS=VALUE (repeatable): e.g. measure one configuration under ncu")
      ->delimiter(',');
  sub.add_option("--compare", o.compare,
                 "also time a baseline in the same run and show the ratio (" +
                     (baselines.empty() ? std::string("this kernel has none") : "known: " + join(baselines)) + ")");
  add_survival_options(sub, o.survival);
}

std::optional<Problem> parse_problem(const KernelDescription& kernel, const std::map<std::string, std::string>& text,
                                     const std::string& what_prefix, std::ostream& err) {
  Problem problem;
  for (const auto& [name, value] : text) {
    if (value.empty()) continue;
    const auto param = std::find_if(kernel.problem.begin(), kernel.problem.end(),
                                    [&](const ProblemParameter& p) { return p.name == name; });
    if (param == kernel.problem.end()) {
      std::vector<std::string> known;
      for (const auto& p : kernel.problem) known.push_back(p.name);
      err << "memtune " << kernel.name << ": " << what_prefix << name << "=" << value << ": " << kernel.name
          << " has no problem variable '" << name << "' (" << (known.empty() ? "it has none" : "known: " + join(known))
          << ")\n";
      return std::nullopt;
    }
    if (!param->labels.empty()) {
      const auto it = std::find(param->labels.begin(), param->labels.end(), value);
      if (it == param->labels.end()) {
        err << "memtune " << kernel.name << ": " << what_prefix << name << " " << value << ": expected one of "
            << join(param->labels) << "\n";
        return std::nullopt;
      }
      problem[name] = it - param->labels.begin();
      continue;
    }
    const auto v = parse_size(value);
    if (!v) {
      err << "memtune " << kernel.name << ": " << what_prefix << name << " " << value
          << ": not a size (examples: 1000003, 64K, 16M)\n";
      return std::nullopt;
    }
    problem[name] = *v;
  }
  try {
    return kernel.complete(problem);
  } catch (const std::invalid_argument& e) {
    err << "memtune " << kernel.name << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

int run_kernel(const KernelDescription& kernel, const Problem& problem, const CommonOptions& o, std::ostream& out,
               std::ostream& err) {
  try {
    kernel.check_baseline_names(o.compare);
  } catch (const std::invalid_argument& e) {
    err << "memtune " << kernel.name << ": --compare: " << e.what() << "\n";
    return kExitUsage;
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
  t.use_cache = !o.no_cache;
  for (const std::string& fixed : o.only) {
    const auto eq = fixed.find('=');
    if (eq == std::string::npos || eq == 0) {
      err << "memtune " << kernel.name << ": --only takes AXIS=VALUE, got '" << fixed << "'\n";
      return kExitUsage;
    }
    t.only[fixed.substr(0, eq)] = fixed.substr(eq + 1);
  }
  t.model_prior = !o.no_model_prior;
  if (auto bad = apply_survival_options(t, o.survival, o.record)) {
    err << "memtune " << kernel.name << ": " << *bad << "\n";
    return kExitUsage;
  }
  // A modeled grid compiles only what can reach the table; a recording needs every prediction.
  t.exact_top = o.record.empty() ? std::max<std::size_t>(o.top, 1) : 0;
  if (!o.cache_dir.empty()) t.cache_folder = o.cache_dir;
  if (!o.quiet)
    t.on_evaluation = [&err](const Evaluation&, std::size_t done) {
      if (done % 25 == 0) err << "  ... " << done << " candidates\n";
    };

  TuningResult result;
  try {
    // "local" goes straight to tune(): with isolation, this process never
    // initialises CUDA (the worker does, and says when there is no GPU).
    if (o.target == "local") {
      result = tune(kernel, problem, t);
    } else {
      const ResolvedTarget target = resolve_target(o.target, o.device);
      result = target.measured ? tune(kernel, problem, t) : tune_modeled(kernel, problem, target.target, t);
    }
  } catch (const DeviceRequired& e) {
    err << "memtune " << kernel.name << ": " << e.what()
        << ". Use --target NAME to predict for a GPU that is not here (memtune targets lists them).\n";
    return kExitNoDevice;
  }

  const std::string note = kernel.hooks.explain ? kernel.hooks.explain(result) : std::string{};
  if (o.json) {
    nlohmann::json j = to_json(result, o.top);
    if (!note.empty()) j["template_note"] = note;
    out << j.dump(2) << "\n";
  } else {
    print_table(out, result, o.top);
    if (!note.empty()) out << "\n" << kernel.name << ": " << note << "\n";
    if (!result.baselines.empty()) out << "\ncompared in the same run (same timing protocol and verification):\n";
    for (const auto& b : result.baselines) out << "  " << describe_baseline(result, b) << "\n";
  }
  if (!o.record.empty()) {
    write_file(o.record, recording_json(result));
    finish_record_journal(t, o.record, result);
  }
  if (!o.save.empty() && result.best()) {
    ProfileStore store(o.save);
    store.save(make_profile_entry(result));
    if (!o.json) out << "\nsaved to " << o.save << "\n";
  } else if (!o.save.empty()) {
    err << "memtune " << kernel.name << ": --save " << o.save << ": nothing saved, no configuration "
        << (result.measured || result.time_modeled ? "succeeded" : "has a time (its time is not modeled)") << "\n";
  }
  if (!result.measured && !result.time_modeled) {
    // Registers and occupancy only: a success when something compiled and fits.
    const bool any = std::any_of(result.evaluations.begin(), result.evaluations.end(),
                                 [](const Evaluation& e) { return e.ok(); });
    return any && result.aborted.empty() ? kExitOk : kExitError;
  }
  if (!result.best()) return kExitError;
  return result.aborted.empty() ? kExitOk : kExitError;
}

} // namespace memtune::cli
