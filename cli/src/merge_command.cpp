#include "merge_command.hpp"

#include "app.hpp"
#include "option_checks.hpp"
#include "output_options.hpp"

#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include "merge_inputs.hpp"
#include <memtune/io/number_text.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/output/printer.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace memtune::cli {

struct MergeCommand {
  CLI::App* app = nullptr;
  std::vector<std::string> inputs;
  std::string output;
  std::string save;
  std::string format = "table";
};

namespace {

std::string device_text(const nlohmann::json& device) {
  return device.value("name", std::string("(no device)")) + " (cc " + device.value("compute_capability", std::string("?")) +
         ", " + std::to_string(device.value("sm_count", 0)) + " SMs)";
}

int merge_recordings_to(const MergeCommand& c, const std::vector<RecordingPart>& parts, output::Document& d) {
  const std::vector<MergedRecording> merged = merge_recordings(parts);
  if (merged.size() > 1)
    d.fact(std::to_string(merged.size()) + " GPU models: one recording each, kept apart (docs/merge.md)");
  // Build every entry before writing anything: a model with no successful
  // candidate stops the merge with nothing half written.
  std::vector<ProfileEntry> entries;
  if (!c.save.empty())
    for (const MergedRecording& m : merged) {
      try {
        entries.push_back(profile_entry_from_merge(m));
      } catch (const std::invalid_argument& e) {
        throw InputError(m.files.front(), 0, "trials",
                         "--save " + c.save + ": no candidate of " + device_text(m.recording.device) +
                             " succeeded in the merged recordings: nothing to save");
      }
    }
  // Each model's file checked, and no two models in one file: names that
  // differ only in punctuation or capitals (or the compute capability) make
  // one file name, where the second would replace the first.
  std::map<std::string, const MergedRecording*> by_file;
  for (const MergedRecording& m : merged) {
    const std::filesystem::path file = model_output_path(c.output, m, merged.size());
    search::check_replaceable_recording(file);
    const auto [at, added] = by_file.emplace(file.lexically_normal().string(), &m);
    if (!added)
      throw ArgumentError("-o " + c.output, "two GPU models, " + device_text(at->second->recording.device) + " and " +
                                               device_text(m.recording.device) + ", would be written to one file, " +
                                               file.string() + ": merge each model's recordings on their own");
  }
  nlohmann::json outputs = nlohmann::json::array();
  // The same per model as rows, for --format csv (the facts above say it in text).
  output::Table& rows = d.add_table("recordings");
  rows.columns = {{.key = "file", .header = "file"},           {.key = "device", .header = "device"},
                  {.key = "candidates", .header = "candidates"}, {.key = "best", .header = "best"},
                  {.key = "best_time_s", .header = "best us", .format = "%.2f", .scale = 1e6}};
  rows.text = false;
  rows.json = false; // data.outputs holds them, richer
  for (const MergedRecording& m : merged) {
    const std::filesystem::path file = model_output_path(c.output, m, merged.size());
    search::save_recording(m.recording, file);
    const auto best = m.recording.best();
    std::string fact = device_text(m.recording.device) + ": " + std::to_string(m.recording.trials.size()) +
                       " candidates from " + std::to_string(m.files.size()) + " recordings (" + m.coverage + "), " +
                       std::to_string(m.identical_duplicates) + " identical duplicates -> " + file.string();
    if (best) fact += "; best " + m.recording.space.format(best->config) + " " + number_text("%.2f us", *best->time_s * 1e6);
    if (!m.dropped_annotations.empty()) {
      std::string dropped;
      for (const auto& k : m.dropped_annotations) dropped += (dropped.empty() ? "" : ", ") + k;
      fact += " (differing facts left out: " + dropped + ")";
    }
    d.fact(fact);
    nlohmann::json o{{"file", file.string()},
                     {"device", m.recording.device},
                     {"inputs", m.files},
                     {"coverage", m.coverage},
                     {"candidates", m.recording.trials.size()},
                     {"identical_duplicates", m.identical_duplicates}};
    if (best) o["best"] = {{"config", m.recording.space.config_to_json(best->config)}, {"time_s", *best->time_s}};
    outputs.push_back(std::move(o));
    nlohmann::json row{{"file", file.string()},
                       {"device", device_text(m.recording.device)},
                       {"candidates", m.recording.trials.size()}};
    if (best) {
      row["best"] = m.recording.space.format(best->config);
      row["best_time_s"] = *best->time_s;
    }
    rows.rows.push_back(std::move(row));
  }
  if (!c.save.empty()) {
    ProfileStore store(c.save);
    for (const ProfileEntry& e : entries) store.save(e); // the writer of tune --save
    d.fact("saved " + std::to_string(entries.size()) + (entries.size() == 1 ? " entry" : " entries") + " to " + c.save);
  }
  d.data = {{"kind", "recording"}, {"outputs", outputs}, {"saved_to", c.save}};
  return kExitOk;
}

int merge_stores_to(const MergeCommand& c, const std::vector<StorePart>& parts, output::Document& d) {
  if (!c.save.empty())
    throw ArgumentError("--save " + c.save, "saves a merged recording's best; profile stores merge into -o itself");
  // An existing -o store is joined, never replaced: its entries are the first
  // part of the union (under the store's lock), by the same rule as the inputs.
  MergedStore merged;
  ProfileStore(c.output).update([&](std::vector<ProfileEntry>& entries) {
    std::vector<StorePart> all;
    const bool output_is_input = std::any_of(parts.begin(), parts.end(), [&](const StorePart& p) {
      return io::same_file(p.file, c.output);
    });
    if (!output_is_input && !entries.empty()) all.push_back({c.output, entries});
    all.insert(all.end(), parts.begin(), parts.end());
    merged = merge_profile_stores(all);
    entries = merged.entries;
  });
  const auto count = [](std::size_t n, const char* one, const char* many) { return std::to_string(n) + (n == 1 ? one : many); };
  d.fact(count(merged.entries.size(), " entry", " entries") + " from " + count(parts.size(), " store", " stores") + ", " +
         count(merged.identical_duplicates, " identical duplicate", " identical duplicates") + " -> " + c.output);
  d.data = {{"kind", "profile store"},
            {"output", c.output},
            {"entries", merged.entries.size()},
            {"identical_duplicates", merged.identical_duplicates}};
  // The merged entries as rows, for --format csv and JSON (text gives the count).
  output::Table& rows = d.add_table("entries");
  rows.columns = {{.key = "key", .header = "key"}, {.key = "config", .header = "config"},
                  {.key = "mode", .header = "mode"}, {.key = "time_s", .header = "us", .format = "%.2f", .scale = 1e6}};
  rows.text = false;
  for (const ProfileEntry& e : merged.entries)
    rows.rows.push_back({{"key", entry_key_text(e)}, {"config", config_text(e.config)}, {"mode", e.mode}, {"time_s", e.time_s}});
  return kExitOk;
}

} // namespace

std::shared_ptr<MergeCommand> add_merge_command(CLI::App& app) {
  auto cmd = std::make_shared<MergeCommand>();
  MergeCommand& c = *cmd;
  c.app = app.add_subcommand("merge", "join the recordings of a run's shards (or profile stores) into one; "
                                      "GPU models kept apart (docs/merge.md)");
  c.app->add_option("inputs", c.inputs, "recordings (--record) of one run's shards, or profile stores")
      ->required()
      ->check(CLI::ExistingFile);
  c.app->add_option("-o,--output", c.output, "the merged recording (one per GPU model) or store; replaced atomically")
      ->required();
  c.app->add_option("--save", c.save, "add the merged best to this profile store (as tune --save does)");
  add_format_options(*c.app, c.format);
  return cmd;
}

bool merge_command_parsed(const MergeCommand& cmd) { return cmd.app && cmd.app->parsed(); }

int run_merge_command(const MergeCommand& c, std::ostream& out) {
  std::vector<std::filesystem::path> files(c.inputs.begin(), c.inputs.end());
  const MergeInputs inputs = read_merge_inputs(files);
  // -o is a recording or a store as the inputs are; checked before anything is written.
  std::vector<NamedOutput> outputs{{"-o", c.output, inputs.kind == MergeInputKind::profile_store
                                                         ? io::OutputKind::profile_store
                                                         : io::OutputKind::recording}};
  if (!c.save.empty()) outputs.push_back({"--save", c.save, io::OutputKind::profile_store});
  check_outputs(outputs);
  output::Document d;
  d.title = "memtune merge: " + std::to_string(files.size()) + " " + std::string(to_string(inputs.kind)) +
            (files.size() == 1 ? "" : "s");
  const int rc = inputs.kind == MergeInputKind::recording ? merge_recordings_to(c, inputs.recordings, d)
                                                          : merge_stores_to(c, inputs.stores, d);
  output::print(out, d, chosen_format(c.format));
  return rc;
}

} // namespace memtune::cli
