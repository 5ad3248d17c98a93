#include "sweep_command.hpp"

#include "app.hpp"
#include "option_checks.hpp"
#include "output_options.hpp"
#include "progress.hpp"
#include "shard_option.hpp"
#include "sweep_over.hpp"
#include "sweep_refinement.hpp"
#include "sweep_report.hpp"
#include "tune_progress.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/io/number_text.hpp>
#include <memtune/output/printer.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tune/transfer.hpp>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

namespace memtune::cli {
namespace {

const KernelDescription* builtin(const std::string& name) {
  std::string known;
  for (const KernelDescription* k : templates::descriptions()) {
    if (k->name == name) return k;
    known += (known.empty() ? "" : ", ") + k->name;
  }
  throw ArgumentError("sweep " + name, "is not a built-in template (" + known + "); a kernel of your own: --spec FILE");
}

std::string point_text(const std::map<std::string, std::int64_t>& point) {
  std::string s;
  for (const auto& [name, value] : point) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s;
}

double log_distance(const Problem& a, const std::map<std::string, std::int64_t>& point) {
  double d = 0;
  for (const auto& [name, value] : point)
    d += std::abs(std::log(static_cast<double>(a.at(name))) - std::log(static_cast<double>(value)));
  return d;
}

// A size's position on the sweep's log scale: the sum of its swept variables' logs.
double log_size(const Problem& p, const std::vector<std::string>& swept) {
  double s = 0;
  for (const std::string& n : swept) s += std::log(static_cast<double>(p.at(n)));
  return s;
}

// The options of one size's run: each file with the size in its name; with
// --resume, the sizes journaled resume and the sizes not reached yet start
// their journal.
CommonOptions options_at(const CommonOptions& o, const std::map<std::string, std::int64_t>& point) {
  CommonOptions po = o;
  po.record = path_for_point(o.record, point);
  po.report = path_for_point(o.report, point);
  po.survival.journal = path_for_point(o.survival.journal, point);
  po.survival.resume = path_for_point(o.survival.resume, point);
  if (!po.survival.resume.empty() && !std::filesystem::exists(po.survival.resume)) {
    po.survival.journal = po.survival.resume;
    po.survival.resume.clear();
  }
  return po;
}

} // namespace

std::string path_for_point(const std::string& file, const std::map<std::string, std::int64_t>& point) {
  if (file.empty()) return file;
  std::string tag;
  for (const auto& [name, value] : point) tag += (tag.empty() ? "" : "-") + name + std::to_string(value);
  const std::filesystem::path p(file);
  return (p.parent_path() / (p.stem().string() + "." + tag + p.extension().string())).string();
}

std::unique_ptr<SweepCommand> add_sweep_command(CLI::App& app) {
  auto c = std::make_unique<SweepCommand>();
  c->app = app.add_subcommand("sweep", "tune a kernel at many problem sizes, one profile entry each, and say where "
                                       "the best configuration changes (docs/sweep.md)");
  c->app->add_option("template", c->kernel, "a built-in template (memtune --help lists them); or --spec");
  c->app->add_option("--spec", c->spec, "a kernel description (JSON) instead of a built-in template");
  c->app->add_option("--over", c->over,
                     "the sizes: NAME=LO:HI (log-spaced, --points of them), NAME=V1,V2,... (a list), several "
                     "variables moving together: rows=1K:64K,cols=1K:64K")
      ->required(); // split by parse_over, which refuses the empty items a delimiter would drop
  c->app->add_option("--points", c->points, "sizes in each LO:HI range, log-spaced, both ends included")
      ->capture_default_str()
      ->check(whole_number(4096));
  c->app->add_option("--set", c->sets, "another problem variable, held at every size: NAME=VALUE; repeatable")
      ->delimiter(',');
  c->app->add_option("--refine", c->refine,
                     "then up to N more sizes, each at the log midpoint of two neighbours whose kept configurations "
                     "disagree (none timed at both, or an expected loss above 5 % between them)")
      ->capture_default_str()
      ->check(whole_number(64));
  add_tuning_options(*c->app, c->options, {});
  return c;
}

int run_sweep_command(const SweepCommand& c, std::ostream& out, std::ostream& err) {
  if (c.spec.empty() == c.kernel.empty())
    throw ArgumentError("sweep", c.spec.empty() ? "needs a template (memtune sweep filter ...) or --spec FILE"
                                                : "takes a template or --spec FILE, not both");
  const KernelDescription kernel = c.spec.empty() ? *builtin(c.kernel) : load_description(c.spec);
  const CommonOptions& o = c.options;
  if (o.devices.mixed)
    throw ArgumentError("--mixed-devices", "a sweep tunes one GPU model; sweep each model with its own --devices");
  if (!o.compare.empty()) throw ArgumentError("--compare", "is for one run; time baselines with the template's command");
  if (c.refine > 0) {
    std::optional<ShardChoice> shard;
    try {
      shard = resolve_shard(o.shard, [](const char* name) { return std::getenv(name); });
    } catch (const std::invalid_argument&) {
      // tune_options names it below
    }
    if (shard && shard->shard.count > 1)
      throw ArgumentError("--refine", "adds sizes from a size's results, which differ from shard to shard (" +
                                          shard->source + "): refine a sweep that is not sharded");
  }

  const std::vector<SweepVariable> over = parse_over(c.over, c.points);
  std::string names;
  for (const auto& p : kernel.problem) names += (names.empty() ? "" : ", ") + p.name;
  std::map<std::string, std::optional<std::string>> fixed;
  for (const std::string& set : c.sets) {
    const auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == set.size()) throw ArgumentError("--set " + set, "takes NAME=VALUE");
    if (!fixed.emplace(set.substr(0, eq), set.substr(eq + 1)).second)
      throw ArgumentError("--set " + set.substr(0, eq), "is given twice");
  }
  for (const SweepVariable& v : over) {
    if (std::none_of(kernel.problem.begin(), kernel.problem.end(), [&](const ProblemParameter& p) { return p.name == v.name; }))
      throw ArgumentError("--over " + v.name, "is not a problem variable of " + kernel.name + " (" + names + ")");
    if (fixed.count(v.name)) throw ArgumentError("--set " + v.name, "is swept by --over; set it in one place");
  }
  auto points = sweep_points(over);
  const auto problem_at = [&](const std::map<std::string, std::int64_t>& point) {
    auto typed = fixed;
    for (const auto& [name, value] : point) typed[name] = std::to_string(value);
    try {
      return kernel.complete(parse_problem(kernel, typed, ProblemSyntax::kSet));
    } catch (const ArgumentError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw ArgumentError("--over " + point_text(point), e.what());
    }
  };
  // Every size's problem first: a size out of the description's ranges is
  // refused before anything runs.
  std::vector<Problem> problems;
  for (const auto& point : points) problems.push_back(problem_at(point));

  if (!o.survival.resume.empty() &&
      std::none_of(points.begin(), points.end(),
                   [&](const auto& point) { return std::filesystem::exists(path_for_point(o.survival.resume, point)); }))
    throw ArgumentError("--resume " + o.survival.resume, "no size of this sweep has a journal (the first would be " +
                                                             path_for_point(o.survival.resume, points.front()) + ")");

  // The names given, before each size is put in them: a device or a FIFO
  // (--record /dev/null) or a folder is no name to derive files from.
  for (const auto& [option, file] : {std::pair{"--record", o.record}, std::pair{"--report", o.report},
                                     std::pair{"--journal", o.survival.journal}, std::pair{"--resume", o.survival.resume}})
    if (!file.empty()) {
      try {
        (void)io::output_file(file);
      } catch (const InputError& e) {
        throw ArgumentError(std::string(option) + " " + file, e.message() + " (a sweep writes one file a size beside it)");
      }
    }
  // Every size's files before the first size runs: a file that is not
  // memtune's own at the last size must not cost the sizes before it.
  for (const auto& point : points) {
    const CommonOptions po = options_at(o, point);
    check_output_files(po.record, po.save, po.report, po.survival.journal);
  }

  const output::Format format = chosen_format(o.format, o.json);
  check_table_option(o.table, format, {"sizes"});
  const bool table = format == output::Format::table;
  std::vector<TuningResult> done;
  int code = kExitOk;
  std::vector<std::string> swept;
  for (const SweepVariable& v : over) swept.push_back(v.name);
  const auto by_size = [&](const TuningResult& a, const TuningResult& b) {
    return log_size(a.problem, swept) < log_size(b.problem, swept);
  };
  const std::size_t planned = points.size();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const CommonOptions po = options_at(o, points[i]);
    std::optional<ProgressLine> progress;
    TuneOptions t = tune_options(kernel, po, progress, err);
    // The sizes done so far, their bests: kept in this size's entry where
    // timed here, and the nearest one below and above measured first.
    std::vector<const TuningResult*> before;
    for (const TuningResult& d : done) before.push_back(&d);
    const std::vector<nlohmann::json> bests = best_configs(before);
    if (o.strategy == "bayes") {
      const TuningResult* below = nullptr;
      const TuningResult* above = nullptr;
      for (const TuningResult& d : done) {
        if (!d.best()) continue; // a size where nothing succeeded has no best to measure
        const double side = log_size(d.problem, swept) - log_size(problems[i], swept);
        if (side < 0 && (!below || log_size(d.problem, swept) > log_size(below->problem, swept))) below = &d;
        if (side > 0 && (!above || log_size(d.problem, swept) < log_size(above->problem, swept))) above = &d;
      }
      for (const TuningResult* n : {below, above})
        if (n) t.first.push_back(best_configs({n}).front());
    }
    if (o.strategy == "bayes" && !done.empty()) {
      // The nearest size done (log scale) is the prior: its ranking, carried
      // to this size by the model's ratio between the two.
      const auto nearest = std::min_element(done.begin(), done.end(), [&](const TuningResult& a, const TuningResult& b) {
        return log_distance(a.problem, points[i]) < log_distance(b.problem, points[i]);
      });
      std::map<std::string, std::int64_t> at;
      for (const auto& [name, value] : points[i]) at[name] = nearest->problem.at(name);
      try {
        t.warm_start = std::make_shared<const TransferSource>(sweep_source(*nearest, point_text(at)));
      } catch (const TransferError&) {
        // A size where nothing succeeded leaves no ranking: the search keeps the model's prior.
      }
    }
    if (!o.quiet)
      err << "memtune sweep " << kernel.name << ": size " << i + 1 << "/" << points.size() << ", " << point_text(points[i])
          << (i >= planned ? " (refined: its neighbours disagree)" : "") << "\n";
    std::vector<TuningResult> results;
    try {
      results = run_tuning(kernel, problems[i], po, t);
    } catch (const DeviceRequired& e) {
      err << "memtune sweep " << kernel.name << ": " << e.what()
          << ". Use --target NAME to predict for a GPU that is not here (memtune targets lists them).\n";
      return kExitNoDevice;
    }
    TuningResult& r = results.front();
    if (progress) progress->finish(run_summary(r));
    RunFiles files;
    files.record = po.record;
    files.report = po.report;
    files.keep = bests;
    files.quiet_save = true;
    write_run_files(kernel, r, po, t, files, table, out, err);
    code = std::max(code, run_exit_code(r));
    done.push_back(std::move(r));
    if (i + 1 == points.size() && points.size() < planned + c.refine) {
      std::vector<const TuningResult*> sorted;
      for (const TuningResult& d : done) sorted.push_back(&d);
      std::sort(sorted.begin(), sorted.end(), [&](const TuningResult* a, const TuningResult* b) { return by_size(*a, *b); });
      if (const auto mid = refinement_point(sorted, swept, kProfileRunnerUps)) {
        try {
          problems.push_back(problem_at(*mid));
          points.push_back(*mid);
        } catch (const ArgumentError& e) {
          // A midpoint the description refuses (a size that must be a multiple of something): the sizes done stand.
          err << "memtune sweep " << kernel.name << ": no size added at " << point_text(*mid) << ": " << e.what() << "\n";
        }
      }
    }
  }
  // The report reads by size, refined sizes in their place (and marked).
  std::vector<std::size_t> order(done.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return by_size(done[a], done[b]); });
  std::vector<TuningResult> by_size_done;
  std::vector<bool> refined;
  for (const std::size_t i : order) {
    by_size_done.push_back(std::move(done[i]));
    refined.push_back(i >= planned);
  }
  // Each size's entry was saved when it finished, keeping the bests of the
  // sizes done before it; saved again now with every size's best it timed,
  // so that the launcher's rule reads what --refine read.
  if (!o.save.empty()) {
    std::vector<const TuningResult*> all;
    for (const TuningResult& r : by_size_done) all.push_back(&r);
    const std::vector<nlohmann::json> bests = best_configs(all);
    ProfileStore store(o.save);
    for (const TuningResult& r : by_size_done)
      if (r.best()) store.save(make_profile_entry(r, kProfileRunnerUps, bests));
  }
  if (!o.report.empty() && table) out << "reports: " << path_for_point(o.report, points.front()) << " .. (one per size)\n";
  const output::Document document = sweep_document(kernel, swept, by_size_done, refined, o.save);
  if (!output::print(out, document, format, o.table)) {
    err << "memtune sweep " << kernel.name << ": --table " << o.table << ": a sweep prints one table, "
        << output::table_keys(document) << "\n";
    code = std::max(code, kExitUsage);
  }
  return code;
}

} // namespace memtune::cli
