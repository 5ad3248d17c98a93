#include "profile_command.hpp"

#include "app.hpp"
#include "option_checks.hpp"
#include "output_options.hpp"
#include "profile_tools.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/io/number_text.hpp>
#include <memtune/launch/config_lookup.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/profile/size_rule.hpp>
#include <memtune/templates/catalogue.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

namespace memtune::cli {

struct ProfileCommand {
  CLI::App* app = nullptr;
  CLI::App *list = nullptr, *show = nullptr, *diff = nullptr, *merge = nullptr, *prune = nullptr, *pick = nullptr;
  std::vector<std::string> sets; // pick: NAME=VALUE
  std::string target = "local"; // pick: the GPU the application runs on
  std::vector<std::string> files;
  std::string into;
  std::string format = "table";
  int index = -1;
  std::string device, template_name, before;
  std::string spec; // pick, show: a user's kernel description, for a store of its entries
  double older_than_days = -1;
  bool modeled = false, dry_run = false;
};

namespace {

// The built-in template an entry was saved for; nullptr for a user's kernel.
const KernelDescription* builtin_of(const ProfileEntry& e) {
  for (const KernelDescription* d : templates::descriptions())
    if (d->name == e.template_name) return d;
  return nullptr;
}

// "n=16777216 op=write": a built-in template's choices by their labels, as
// the CLI takes them; a user's kernel (no description here) by its numbers.
std::string problem_text(const ProfileEntry& e) {
  const KernelDescription* d = builtin_of(e);
  return d ? format_problem(e.problem, d->problem) : format_problem(e.problem);
}

nlohmann::json entry_row(const ProfileEntry& e, const std::string& file, std::size_t index) {
  return {{"file", file},
          {"index", index},
          {"device", e.device.name},
          {"arch", "sm_" + std::to_string(e.device.cc_major) + std::to_string(e.device.cc_minor)},
          {"sm_count", e.device.sm_count},
          {"template", e.template_name},
          {"problem", e.problem},
          {"problem_text", problem_text(e)},
          {"config", e.config},
          {"mode", e.mode},
          // No time (an entry saved without one): blank, not "0.00 us".
          {"time_s", e.time_s > 0 ? nlohmann::json(e.time_s) : nlohmann::json()},
          {"gbps", e.time_s > 0 ? nlohmann::json(e.gbps) : nlohmann::json()},
          {"saved_at", e.saved_at},
          {"tool", e.tool}};
}

std::vector<output::Column> entry_columns(bool with_file) {
  std::vector<output::Column> c;
  if (with_file) c.push_back({.key = "file", .header = "file"});
  c.insert(c.end(), {{.key = "index", .header = "#", .left = true},
                     {.key = "device", .header = "device"},
                     {.key = "arch", .header = "arch"},
                     {.key = "template", .header = "template"},
                     {.key = "problem_text", .header = "problem", .csv = false, .json = false},
                     {.key = "problem", .header = "problem", .text = false},
                     {.key = "config", .header = "config"},
                     {.key = "mode", .header = "mode"},
                     {.key = "time_s", .header = "time us", .format = "%.2f", .scale = 1e6},
                     {.key = "gbps", .header = "GB/s", .format = "%.0f"},
                     {.key = "saved_at", .header = "saved"}});
  return c;
}

int list(const ProfileCommand& c, std::ostream& out) {
  output::Document d;
  d.title = "memtune profile list";
  std::vector<std::vector<ProfileEntry>> stores;
  for (const auto& f : c.files) {
    stores.push_back(ProfileStore(f).entries());
    d.fact(f + ": " + std::to_string(stores.back().size()) + (stores.back().size() == 1 ? " entry" : " entries"));
  }
  output::Table& t = d.add_table("entries");
  t.columns = entry_columns(c.files.size() > 1);
  std::size_t total = 0;
  for (std::size_t s = 0; s < stores.size(); ++s) {
    for (std::size_t i = 0; i < stores[s].size(); ++i) t.rows.push_back(entry_row(stores[s][i], c.files[s], i));
    total += stores[s].size();
  }
  d.data["files"] = c.files;
  d.data["count"] = total;
  output::print(out, d, chosen_format(c.format));
  return kExitOk;
}

// The entries swept with `e` (same device, template and problem variables;
// equal non-size variables) and their size variables: the description's
// (`kernel`, null where there is none here), else the variables whose values
// differ among them.
std::pair<std::vector<ProfileEntry>, std::vector<std::string>> swept_with(const ProfileEntry& e,
                                                                          const std::vector<ProfileEntry>& entries,
                                                                          const KernelDescription* kernel) {
  std::vector<ProfileEntry> group;
  for (const ProfileEntry& other : entries) {
    if (other.device != e.device || other.template_name != e.template_name || other.mode != e.mode) continue;
    if (other.problem.size() != e.problem.size()) continue;
    group.push_back(other);
  }
  std::vector<std::string> keys;
  if (kernel) keys = kernel->size_variables();
  if (keys.empty())
    for (const auto& [name, value] : e.problem)
      // Captured by name: clang before 16 cannot capture a structured binding.
      if (std::any_of(group.begin(), group.end(), [&name = name, &value = value](const ProfileEntry& o) {
            const auto it = o.problem.find(name);
            return it == o.problem.end() || it->second != value;
          }))
        keys.push_back(name);
  // Entries that differ on a variable that is not a size are another problem.
  std::erase_if(group, [&](const ProfileEntry& o) {
    for (const auto& [name, value] : e.problem) {
      const auto it = o.problem.find(name);
      if (it == o.problem.end()) return true;
      if (std::find(keys.begin(), keys.end(), name) == keys.end() && it->second != value) return true;
    }
    return false;
  });
  return {group, keys};
}

// The per-call rule of a swept group: what a call between two stored sizes gets.
// `kernel`: the entry's description (a built-in template's, or --spec's), null
// where there is none here.
void add_size_rule(output::Document& d, const ProfileEntry& e, const std::vector<ProfileEntry>& entries,
                   const KernelDescription* kernel) {
  const auto [group, keys] = swept_with(e, entries, kernel);
  if (group.size() < 2 || keys.empty()) return;
  // The launcher's model between sizes: a described kernel with a model on a GPU the catalogue knows.
  std::optional<Target> target;
  if (kernel) {
    try {
      target = resolve_target(e.device.name, 0, /*predict=*/true).target; // the catalogue's entry, no CUDA
      target->sm_count = e.device.sm_count; // the board the entries were measured on
    } catch (const std::exception&) {
      // not in the catalogue, or no catalogue here: the rule interpolates the times alone
    }
  }
  const SizeRuleModel rule = target ? size_rule_model(*kernel, *target) : SizeRuleModel{};
  const std::vector<SizeRuleRow> rows = size_rule_rows(group, keys, rule.kept, rule.predict);
  const bool modeled =
      std::any_of(rows.begin(), rows.end(), [](const SizeRuleRow& r) { return r.midpoint && r.midpoint->modeled; });
  std::string sizes;
  for (const auto& k : keys) sizes += (sizes.empty() ? "" : ", ") + k;
  d.paragraph("per-call rule (" + std::to_string(group.size()) + " sizes of " + e.template_name + " on " +
              e.device.name + ", size variables " + sizes +
              "): a call at a stored size takes that entry; between two stored sizes, of the configurations the two "
              "kept, the one with the least time" +
              (modeled ? std::string(": the model's at the call's size, corrected by what each of the two measured "
                                     "against the model's there (" + target->display_name + ")")
                       : std::string(" interpolated on a log-log scale between the two")) +
              ", with its expected loss; outside them, the nearest size's" +
              (kernel ? std::string{}
                      : std::string(" (the kernel's description is not here: with --spec FILE the rule models "
                                    "between sizes as the launcher does)")) +
              ". The pick at each midpoint:");
  output::Table& t = d.add_table("size_rule");
  t.columns = {{.key = "between", .header = "between", .left = true},
               {.key = "lower_best", .header = "best below", .json = false},
               {.key = "upper_best", .header = "best above", .json = false},
               {.key = "pick", .header = "pick at midpoint", .json = false},
               {.key = "expected_loss", .header = "expected loss %", .format = "%.1f", .scale = 100},
               {.key = "compared", .header = "in common"}};
  for (const SizeRuleRow& r : rows) {
    nlohmann::json row;
    row["between"] = format_problem(r.lower) + " .. " + format_problem(r.upper);
    row["lower"] = r.lower;
    row["upper"] = r.upper;
    row["lower_best"] = config_text(r.lower_best);
    row["upper_best"] = config_text(r.upper_best);
    if (r.midpoint) {
      row["pick"] = config_text(r.midpoint->config);
      row["pick_config"] = r.midpoint->config;
      row["expected_loss"] = r.midpoint->expected_loss;
      row["compared"] = r.midpoint->compared;
    } else {
      row["pick"] = "(nearest size: no configuration timed at both)";
      row["compared"] = 0;
    }
    t.rows.push_back(std::move(row));
  }
}

// --spec's description, where given (pick, show).
std::optional<KernelDescription> spec_description(const ProfileCommand& c) {
  if (c.spec.empty()) return std::nullopt;
  return load_description(c.spec);
}

int show(const ProfileCommand& c, std::ostream& out, std::ostream& err) {
  const auto entries = ProfileStore(c.files.front()).entries();
  if (c.index >= 0 && static_cast<std::size_t>(c.index) >= entries.size()) {
    err << "memtune profile show: --index " << c.index << ": " << c.files.front() << " holds " << entries.size()
        << (entries.empty() ? " entries" : " entries, numbered 0 to " + std::to_string(entries.size() - 1))
        << " (memtune profile list shows them)\n";
    return kExitUsage;
  }
  std::vector<std::size_t> match;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ProfileEntry& e = entries[i];
    if (c.index >= 0 && static_cast<std::size_t>(c.index) != i) continue;
    if (!c.template_name.empty() && e.template_name != c.template_name) continue;
    if (!c.device.empty() && !PruneRule{.device = c.device}.matches(e)) continue;
    match.push_back(i);
  }
  if (match.size() != 1) {
    err << "memtune profile show: " << c.files.front() << ": " << match.size()
        << " entries match; pick one with --index N (memtune profile list shows the numbers), --template or --device\n";
    for (const std::size_t i : match) err << "  " << i << ": " << entry_key_text(entries[i]) << "\n";
    return kExitUsage;
  }
  const ProfileEntry& e = entries[match.front()];
  output::Document d;
  d.title = entry_key_text(e);
  d.data = e.to_json();
  d.data["file"] = c.files.front();
  d.data["index"] = match.front();
  d.fact("config: " + config_text(e.config));
  d.fact("mode: " + e.mode + ", time " + number_text("%.2f us, ", e.time_s * 1e6) + std::to_string(static_cast<int>(e.gbps)) + " GB/s" +
         (e.fraction_of_ceiling > 0 ? ", " + std::to_string(static_cast<int>(100 * e.fraction_of_ceiling + 0.5)) +
                                          "% of the copy ceiling"
                                    : std::string{}));
  d.fact("saved " + (e.saved_at.empty() ? std::string("(no date)") : e.saved_at) + " by " + e.tool);
  const std::optional<KernelDescription> spec = spec_description(c);
  if (spec && spec->name != e.template_name)
    throw ArgumentError("--spec " + c.spec, "describes " + spec->name + ", and entry " +
                                                std::to_string(match.front()) + " is of " + e.template_name);
  const KernelDescription* kernel = spec ? &*spec : builtin_of(e);
  d.fact(kernel_version_text(e, kernel, spec ? "--spec's" : "this memtune's built-in"));
  // For scripts: whether the entry timed the kernel as it is now (null: not known).
  const std::optional<bool> same = kernel ? same_kernel(e, kernel->fingerprint()) : std::nullopt;
  d.data["same_kernel"] = same ? nlohmann::json(*same) : nlohmann::json();
  if (!e.rationale.empty()) d.paragraph("why: " + e.rationale);
  output::Table& t = d.add_table("runner_ups");
  t.columns = {{.key = "config", .header = "runner-up"},
               {.key = "time_s", .header = "time us", .format = "%.2f", .scale = 1e6},
               {.key = "gbps", .header = "GB/s", .format = "%.0f"}};
  for (const auto& r : e.runner_ups) t.rows.push_back(r);
  d.data.erase("runner_ups"); // the table carries them
  add_size_rule(d, e, entries, kernel);
  output::print(out, d, chosen_format(c.format));
  return kExitOk;
}

int diff(const ProfileCommand& c, std::ostream& out) {
  const std::string& fa = c.files[0];
  const std::string& fb = c.files[1];
  const StoreDiff sd = diff_stores(ProfileStore(fa).entries(), ProfileStore(fb).entries());
  output::Document d;
  d.title = "memtune profile diff " + fa + " " + fb;
  d.fact(std::to_string(sd.different.size()) + " keys with different picks, " + std::to_string(sd.same) + " the same" +
         (sd.same_other_time > 0 ? " (" + std::to_string(sd.same_other_time) + " timed differently, up to " +
                                       number_text("%.1f %%", 100 * (sd.largest_time_ratio - 1)) + ")"
                                 : std::string{}) +
         ", " + std::to_string(sd.only_a.size()) + " only in " + fa + ", " + std::to_string(sd.only_b.size()) +
         " only in " + fb);
  d.data["same"] = sd.same;
  d.data["same_other_time"] = sd.same_other_time;
  d.data["largest_time_ratio"] = sd.largest_time_ratio;
  output::Table& t = d.add_table("different");
  t.columns = {{.key = "key", .header = "key"},
               {.key = "config_a", .header = "pick in " + fa},
               {.key = "time_a_s", .header = "us", .format = "%.2f", .scale = 1e6},
               {.key = "config_b", .header = "pick in " + fb},
               {.key = "time_b_s", .header = "us", .format = "%.2f", .scale = 1e6}};
  for (const auto& x : sd.different)
    t.rows.push_back({{"key", entry_key_text(x.a)},
                      {"config_a", config_text(x.a.config) + (x.a.mode == "measured" ? "" : " (" + x.a.mode + ")")},
                      {"time_a_s", x.a.time_s},
                      {"config_b", config_text(x.b.config) + (x.b.mode == "measured" ? "" : " (" + x.b.mode + ")")},
                      {"time_b_s", x.b.time_s}});
  for (const auto& [key, only] : {std::pair{"only_a", &sd.only_a}, std::pair{"only_b", &sd.only_b}}) {
    output::Table& o = d.add_table(key);
    o.columns = {{.key = "key", .header = std::string("only in ") + (key == std::string("only_a") ? fa : fb)},
                 {.key = "config", .header = "config"}};
    for (const auto& e : *only) o.rows.push_back({{"key", entry_key_text(e)}, {"config", config_text(e.config)}});
    if (only->empty()) o.text = false;
  }
  if (sd.different.empty()) t.text = false;
  output::print(out, d, chosen_format(c.format));
  return sd.different.empty() && sd.only_a.empty() && sd.only_b.empty() ? kExitOk : kExitError;
}

int merge(const ProfileCommand& c, std::ostream& out) {
  output::Document d;
  d.title = "memtune profile merge into " + c.into;
  nlohmann::json conflicts = nlohmann::json::array();
  MergeOutcome total;
  // Read every source first: a corrupt one stops the merge before anything is written.
  std::vector<std::pair<std::string, std::vector<ProfileEntry>>> sources;
  for (const auto& f : c.files) sources.emplace_back(f, ProfileStore(f).entries());
  ProfileStore(c.into).update([&](std::vector<ProfileEntry>& entries) {
    for (const auto& [file, incoming] : sources) {
      const MergeOutcome m = merge_entries(entries, incoming, file);
      total.added += m.added;
      total.replaced += m.replaced;
      total.kept += m.kept;
      total.identical += m.identical;
      total.conflicts.insert(total.conflicts.end(), m.conflicts.begin(), m.conflicts.end());
    }
  });
  d.fact(std::to_string(total.added) + " added, " + std::to_string(total.replaced) + " replaced, " +
         std::to_string(total.kept) + " kept, " + std::to_string(total.identical) + " identical");
  for (const auto& line : total.conflicts) {
    d.fact("conflict: " + line);
    conflicts.push_back(line);
  }
  d.data = {{"into", c.into}, {"from", c.files}, {"added", total.added}, {"replaced", total.replaced},
            {"kept", total.kept}, {"identical", total.identical}, {"conflicts", conflicts}};
  output::print(out, d, chosen_format(c.format));
  return kExitOk;
}

// What the launcher (TunedKernel) would take from the store for one problem
// on one GPU: look_up_config with tuning off, as an application with
// MEMTUNE_NO_TUNE=1 would decide it.
int pick(const ProfileCommand& c, std::ostream& out) {
  if (c.template_name.empty() == c.spec.empty())
    throw ArgumentError("pick", "takes --template NAME (a built-in template) or --spec FILE (your kernel's description)");
  const std::optional<KernelDescription> spec = spec_description(c);
  const KernelDescription* kernel = spec ? &*spec : nullptr;
  if (!spec) {
    std::string known;
    for (const KernelDescription* k : templates::descriptions()) {
      if (k->name == c.template_name) kernel = k;
      known += (known.empty() ? "" : ", ") + k->name;
    }
    if (!kernel)
      throw ArgumentError("--template " + c.template_name,
                          "is not a built-in template (" + known + "); a kernel of your own: --spec FILE");
  }
  std::map<std::string, std::optional<std::string>> typed;
  for (const std::string& set : c.sets) {
    const auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == set.size()) throw ArgumentError("--set " + set, "takes NAME=VALUE");
    if (!typed.emplace(set.substr(0, eq), set.substr(eq + 1)).second)
      throw ArgumentError("--set " + set.substr(0, eq), "is given twice");
  }
  const Problem problem = kernel->complete(parse_problem(*kernel, typed, ProblemSyntax::kSet));
  const Target target = resolve_target(c.target, 0, c.target != "local").target;
  const ProfileStore store(c.files.front());
  LauncherOptions options;
  options.allow_tuning = false;
  const ConfigLookup l = look_up_config(*kernel, problem, target, &store, options, LookupEnvironment::from_process());
  const search::Space space = kernel->space(problem, target);
  output::Document d;
  d.title = "memtune profile pick: " + kernel->name + " " + format_problem(problem, kernel->problem) + " on " +
            target.display_name;
  d.fact("config: " + space.format(l.config));
  d.fact("from: " + l.origin);
  if (!l.rationale.empty()) d.paragraph("why: " + l.rationale);
  for (const std::string& s : l.skipped) d.paragraph("passed over: " + s);
  for (const std::string& s : l.notes) d.paragraph("note: " + s);
  d.data["config"] = space.config_to_json(l.config);
  d.data["origin"] = l.origin;
  d.data["problem"] = problem;
  d.data["skipped"] = l.skipped;
  d.data["notes"] = l.notes;
  if (l.between) d.data["expected_loss"] = l.between->expected_loss;
  output::print(out, d, chosen_format(c.format));
  return kExitOk;
}

int prune(const ProfileCommand& c, std::ostream& out, std::ostream& err) {
  PruneRule rule;
  if (!c.before.empty()) {
    (void)utc_seconds_option("--before", c.before); // refused before the store is opened
    rule.saved_before = c.before;
  }
  if (c.older_than_days >= 0) rule.saved_before = utc_days_ago(c.older_than_days);
  if (!c.device.empty()) rule.device = c.device;
  if (!c.template_name.empty()) rule.template_name = c.template_name;
  rule.modeled_only = c.modeled;
  if (rule.empty()) {
    err << "memtune profile prune: say what to remove: --older-than DAYS, --before DATE, --device NAME, --template "
           "NAME or --modeled\n";
    return kExitUsage;
  }
  output::Document d;
  d.title = std::string("memtune profile prune ") + c.files.front() + (c.dry_run ? " (dry run: nothing removed)" : "");
  output::Table& t = d.add_table("removed");
  t.columns = entry_columns(false);
  std::size_t kept = 0;
  auto apply = [&](std::vector<ProfileEntry>& entries) {
    std::vector<ProfileEntry> keep;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      bool matches = false;
      try {
        matches = rule.matches(entries[i]);
      } catch (const InputError& e) { // an entry's own field: name the store and the entry
        if (!e.file().empty()) throw;
        throw InputError(c.files.front(), 0, "entries[" + std::to_string(i) + "]." + e.field(), e.message());
      }
      if (matches) t.rows.push_back(entry_row(entries[i], c.files.front(), i));
      else keep.push_back(entries[i]);
    }
    kept = keep.size();
    if (!c.dry_run) entries = std::move(keep);
  };
  ProfileStore store(c.files.front());
  if (c.dry_run) {
    auto entries = store.entries();
    apply(entries);
  } else {
    store.update(apply);
  }
  d.fact(std::to_string(t.rows.size()) + (c.dry_run ? " would be removed, " : " removed, ") + std::to_string(kept) +
         " kept" + (rule.saved_before ? " (saved before " + *rule.saved_before + ")" : std::string{}));
  d.data = {{"file", c.files.front()}, {"kept", kept}, {"dry_run", c.dry_run}};
  output::print(out, d, chosen_format(c.format));
  return kExitOk;
}

} // namespace

std::shared_ptr<ProfileCommand> add_profile_command(CLI::App& app) {
  auto cmd = std::make_shared<ProfileCommand>();
  ProfileCommand& c = *cmd;
  c.app = app.add_subcommand("profile", "look into and maintain profile stores (the files --save writes)");
  c.app->require_subcommand(1);
  c.list = c.app->add_subcommand("list", "what stores hold: devices, templates, problems, picks, dates");
  c.list->add_option("files", c.files, "profile stores")->required()->check(CLI::ExistingFile);
  c.show = c.app->add_subcommand("show", "one entry in full: configuration, time, rationale, runner-ups");
  c.show->add_option("file", c.files, "a profile store")->required()->expected(1)->check(CLI::ExistingFile);
  c.show->add_option("--index", c.index, "the entry's number in `memtune profile list`")
      ->check(whole_number(std::numeric_limits<int>::max()));
  c.diff = c.app->add_subcommand("diff", "compare two stores: keys whose pick differs, keys only in one (exit 1 if any)");
  c.diff->add_option("files", c.files, "two profile stores")->required()->expected(2)->check(CLI::ExistingFile);
  c.merge = c.app->add_subcommand(
      "merge", "merge stores into one; on a conflict the faster measured entry stays, and the output says which");
  c.merge->add_option("files", c.files, "stores to merge from")->required()->check(CLI::ExistingFile);
  c.merge->add_option("--into", c.into, "the store to merge into (created if missing; locked like --save)")->required();
  c.prune = c.app->add_subcommand("prune", "remove entries: every given criterion must hold");
  c.prune->add_option("file", c.files, "a profile store")->required()->expected(1)->check(CLI::ExistingFile);
  c.prune->add_option("--older-than", c.older_than_days, "saved more than this many days ago (entries without a date too)")
      ->check(days()); // a finite number >= 0: "-5" would otherwise mean "not given"
  c.prune->add_option("--before", c.before, "saved before this ISO 8601 date, e.g. 2026-01-31");
  c.prune->add_flag("--modeled", c.modeled, "only modeled entries");
  c.prune->add_flag("--dry-run", c.dry_run, "show what would be removed; change nothing");
  c.pick = c.app->add_subcommand("pick", "the configuration the launcher takes from a store for one problem (the "
                                         "exact size, the rule between swept sizes, the nearest)");
  c.pick->add_option("file", c.files, "a profile store")->required()->expected(1)->check(CLI::ExistingFile);
  c.pick->add_option("--set", c.sets, "a problem variable, NAME=VALUE (sizes take K, M, G); repeatable")->delimiter(',');
  c.pick->add_option("--target", c.target, "the GPU: local (this machine's) or a name from `memtune targets`")
      ->transform(local_target_name())
      ->capture_default_str();
  c.pick->add_option("--template", c.template_name, "the built-in template (or --spec)");
  for (CLI::App* sub : {c.pick, c.show})
    sub->add_option("--spec", c.spec, "your kernel's description (JSON), for a store of its entries: its problem "
                                      "variables and model, as the launcher has them")
        ->check(CLI::ExistingFile);
  for (CLI::App* sub : {c.show, c.prune}) {
    sub->add_option("--device", c.device, "device name (case-insensitive substring)");
    sub->add_option("--template", c.template_name, "template name");
  }
  for (CLI::App* sub : {c.list, c.show, c.diff, c.merge, c.prune, c.pick}) add_format_options(*sub, c.format);
  return cmd;
}

bool profile_command_parsed(const ProfileCommand& cmd) { return cmd.app && cmd.app->parsed(); }

int run_profile_command(const ProfileCommand& c, std::ostream& out, std::ostream& err) {
  try {
    if (c.list->parsed()) return list(c, out);
    if (c.show->parsed()) return show(c, out, err);
    if (c.diff->parsed()) return diff(c, out);
    if (c.merge->parsed()) return merge(c, out);
    if (c.prune->parsed()) return prune(c, out, err);
    if (c.pick->parsed()) return pick(c, out);
  } catch (const ProfileError& e) {
    err << "memtune profile: " << e.what() << "\n";
    return kExitError;
  }
  return kExitUsage;
}

} // namespace memtune::cli
