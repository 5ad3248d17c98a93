#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/io/json_fields.hpp>
#include <memtune/io/number_text.hpp>
#include <memtune/profile/recording_merge.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace memtune {
namespace {

using search::Config;
using search::Recording;
using search::Trial;

// What a field holds, for "differs" messages: short, one line.
std::string shown(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : io::shown(value); }

[[noreturn]] void refuse_difference(const RecordingPart& part, const RecordingPart& reference, const std::string& field,
                                    const nlohmann::json& here, const nlohmann::json& there) {
  throw InputError(part.file, 0, field,
                   "differs from " + reference.file + ": " + shown(here) + " here, " + shown(there) +
                       " there; merge joins the parts of one run only (same kernel, problem, mode and space)");
}

// The space as JSON without its shard: what every part of one run shares.
nlohmann::json unsharded_space(const Recording& r) {
  nlohmann::json j = r.space.to_json();
  j.erase("shard");
  return j;
}

// The same run, whatever the GPU: kernel and problem.
void check_same_kernel_and_problem(const RecordingPart& part, const RecordingPart& reference) {
  const Recording& a = part.recording;
  const Recording& b = reference.recording;
  if (a.template_name != b.template_name) refuse_difference(part, reference, "template", a.template_name, b.template_name);
  if (a.kernel_fingerprint != b.kernel_fingerprint)
    refuse_difference(part, reference, "kernel_fingerprint", a.kernel_fingerprint.empty() ? "(none)" : a.kernel_fingerprint,
                      b.kernel_fingerprint.empty() ? "(none)" : b.kernel_fingerprint);
  if (a.problem != b.problem) refuse_difference(part, reference, "problem", a.problem, b.problem);
}

// The same run on one GPU model: also the mode and the space (target-aware
// pruning makes spaces of different models differ, so only within one).
void check_same_run_on_model(const RecordingPart& part, const RecordingPart& reference) {
  const Recording& a = part.recording;
  const Recording& b = reference.recording;
  if (a.mode != b.mode)
    refuse_difference(part, reference, "mode", a.mode.empty() ? "(none)" : a.mode, b.mode.empty() ? "(none)" : b.mode);
  const nlohmann::json sa = unsharded_space(a), sb = unsharded_space(b);
  if (sa == sb) return;
  // Name the first part of the space that differs: an axis by its name.
  const auto& xa = a.space.axes();
  const auto& xb = b.space.axes();
  auto names = [](const std::vector<search::Axis>& axes) {
    nlohmann::json n = nlohmann::json::array();
    for (const auto& x : axes) n.push_back(x.name);
    return n;
  };
  if (names(xa) != names(xb)) refuse_difference(part, reference, "space.axes", names(xa), names(xb));
  for (std::size_t i = 0; i < xa.size(); ++i)
    if (sa.at("axes").at(i) != sb.at("axes").at(i))
      throw InputError(part.file, 0, "space.axes." + xa[i].name,
                       "differs from " + reference.file + ": " + sa.at("axes").at(i).dump() + " here, " +
                           sb.at("axes").at(i).dump() + " there; merge joins the parts of one run only");
  for (const char* key : {"constraints", "pruned"})
    if (sa.value(key, nlohmann::json()) != sb.value(key, nlohmann::json()))
      refuse_difference(part, reference, std::string("space.") + key, sa.value(key, nlohmann::json()),
                        sb.value(key, nlohmann::json()));
  refuse_difference(part, reference, "space", sa, sb);
}

// Shards of one count, all of them (or a whole run among the parts).
std::string check_coverage(const std::vector<const RecordingPart*>& parts) {
  bool whole = false;
  const RecordingPart* first_sharded = nullptr;
  std::set<std::uint32_t> indices;
  for (const RecordingPart* p : parts) {
    const auto& shard = p->recording.space.shard();
    if (!shard) {
      whole = true;
      continue;
    }
    if (first_sharded && first_sharded->recording.space.shard()->count != shard->count)
      throw InputError(p->file, 0, "space.shard",
                       "is shard " + shard->to_string() + ", but " + first_sharded->file + " is shard " +
                           first_sharded->recording.space.shard()->to_string() +
                           ": the parts of one run are shards of one count");
    if (!first_sharded) first_sharded = p;
    indices.insert(shard->index);
  }
  if (!first_sharded) return "whole run";
  const std::uint32_t count = first_sharded->recording.space.shard()->count;
  const std::string shards = "shards " + (indices.size() == count ? "1-" + std::to_string(count)
                                                                  : [&] {
                                                                      std::string s;
                                                                      for (auto i : indices) s += (s.empty() ? "" : ",") + std::to_string(i);
                                                                      return s;
                                                                    }()) +
                             " of " + std::to_string(count);
  if (whole) return "whole run and " + shards;
  if (indices.size() == count) return shards;
  std::string missing;
  for (std::uint32_t i = 1; i <= count; ++i)
    if (!indices.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  throw InputError(first_sharded->file, 0, "space.shard",
                   "the inputs hold " + shards + "; shard " + missing + " of " + std::to_string(count) +
                       " is missing, so the merge would rank part of the space only (add its recording)");
}

// A config's position in the space's grid order (the first axis varies
// slowest), so the merged trials are in the order a single grid run
// evaluates them.
std::size_t grid_position(const search::Space& space, const Config& config) {
  std::size_t index = 0;
  for (const search::Axis& axis : space.axes()) index = index * axis.values.size() + axis.index_of(config.at(axis.name));
  return index;
}

std::string describe_trial(const search::Space& space, const Trial& t) {
  if (t.ok()) return "ok in " + number_text("%.4g us", *t.time_s * 1e6);
  return t.status + (t.reason.empty() ? "" : " (" + t.reason + ")");
}

// Facts the parts agree on are kept. Two differ by nature between parts:
// the time each part took (summed: the run's cost) and the copy ceiling
// each node measured (the highest: the ceiling this GPU model reaches).
nlohmann::json merge_annotations(const std::vector<const RecordingPart*>& parts, std::vector<std::string>& dropped) {
  std::set<std::string> keys;
  for (const RecordingPart* p : parts)
    for (const auto& [k, v] : p->recording.annotations.items()) keys.insert(k);
  nlohmann::json merged = nlohmann::json::object();
  for (const std::string& key : keys) {
    std::vector<nlohmann::json> values;
    for (const RecordingPart* p : parts)
      if (p->recording.annotations.contains(key)) values.push_back(p->recording.annotations.at(key));
    const bool everywhere = values.size() == parts.size();
    const bool numbers = std::all_of(values.begin(), values.end(), [](const nlohmann::json& v) { return v.is_number(); });
    if (everywhere && std::all_of(values.begin(), values.end(), [&](const nlohmann::json& v) { return v == values.front(); })) {
      merged[key] = values.front();
    } else if (key == "wall_seconds" && numbers) {
      double sum = 0;
      for (const auto& v : values) sum += v.get<double>();
      merged[key] = sum;
    } else if (key == "copy_ceiling_gbps" && numbers) {
      double best = 0;
      for (const auto& v : values) best = std::max(best, v.get<double>());
      merged[key] = best;
    } else {
      dropped.push_back(key);
    }
  }
  return merged;
}

MergedRecording merge_one_model(const std::vector<const RecordingPart*>& parts) {
  const RecordingPart& reference = *parts.front();
  for (const RecordingPart* p : parts) check_same_run_on_model(*p, reference);

  MergedRecording m;
  m.coverage = check_coverage(parts);
  Recording& out = m.recording;
  const Recording& ref = reference.recording;
  out.template_name = ref.template_name;
  out.kernel_fingerprint = ref.kernel_fingerprint;
  out.mode = ref.mode;
  out.problem = ref.problem;
  out.device = ref.device;
  out.space = search::Space::from_json(unsharded_space(ref));
  out.annotations = merge_annotations(parts, m.dropped_annotations);
  std::set<std::string> tools;
  for (const RecordingPart* p : parts) tools.insert(p->recording.tool);
  out.tool.clear();
  for (const auto& t : tools) out.tool += (out.tool.empty() ? "" : ", ") + t;

  // Each trial with its other keys (joules, the GPU it ran on), kept through the merge.
  struct Kept {
    Trial trial;
    const RecordingPart* part;
    nlohmann::json others;
  };
  std::map<Config, Kept> seen;
  for (const RecordingPart* p : parts) {
    m.files.push_back(p->file);
    const Recording& rec = p->recording;
    for (std::size_t i = 0; i < rec.trials.size(); ++i) {
      const Trial& t = rec.trials[i];
      const nlohmann::json others = i < rec.trial_annotations.size() ? rec.trial_annotations[i] : nlohmann::json::object();
      if (others.contains("resources")) { // read into the merged best's profile entry: checked here, in its file
        try {
          (void)kernel_resources_from_json(
              io::JsonFields(others.at("resources"), "trials[" + std::to_string(i) + "].resources"));
        } catch (const InputError& e) {
          throw e.located(p->file, 0);
        }
      }
      const auto [it, added] = seen.emplace(t.config, Kept{t, p, others});
      if (added) continue;
      const Trial& other = it->second.trial;
      // A failure's reason may name a time or an address: the status decides.
      if (other.status == t.status && other.time_s == t.time_s) {
        ++m.identical_duplicates;
        continue;
      }
      throw InputError(p->file, 0, "trials",
                       "configuration " + out.space.format(t.config) + " is " + describe_trial(out.space, t) +
                           " here and " + describe_trial(out.space, other) + " in " + it->second.part->file +
                           ": measured twice with different results; merge only one of the two");
    }
  }
  std::vector<Kept> kept;
  for (auto& [config, k] : seen) kept.push_back(std::move(k));
  std::stable_sort(kept.begin(), kept.end(), [&](const Kept& a, const Kept& b) {
    return grid_position(out.space, a.trial.config) < grid_position(out.space, b.trial.config);
  });
  for (Kept& k : kept) {
    out.trials.push_back(std::move(k.trial));
    out.trial_annotations.push_back(std::move(k.others));
  }
  return m;
}

} // namespace

std::vector<MergedRecording> merge_recordings(const std::vector<RecordingPart>& parts) {
  if (parts.empty()) throw std::invalid_argument("merge_recordings: no recordings to merge");
  std::vector<std::string> models; // device JSON, in the order models appear
  std::map<std::string, std::vector<const RecordingPart*>> by_model;
  for (const RecordingPart& p : parts) {
    check_same_kernel_and_problem(p, parts.front());
    const std::string key = p.recording.device.dump();
    if (!by_model.count(key)) models.push_back(key);
    by_model[key].push_back(&p);
  }
  std::vector<MergedRecording> merged;
  for (const std::string& key : models) merged.push_back(merge_one_model(by_model.at(key)));
  return merged;
}

std::filesystem::path model_output_path(const std::filesystem::path& out, const MergedRecording& merged,
                                        std::size_t models) {
  if (models <= 1) return out;
  DeviceFingerprint model;
  model.name = merged.recording.device.value("name", std::string("device"));
  model.sm_count = merged.recording.device.value("sm_count", 0);
  return path_for_model(out, model);
}

ProfileEntry profile_entry_from_merge(const MergedRecording& merged, std::size_t runner_ups) {
  const Recording& rec = merged.recording;
  TuningResult r;
  r.template_name = rec.template_name;
  r.kernel_fingerprint = rec.kernel_fingerprint;
  r.device = DeviceFingerprint::from_json(rec.device);
  for (const auto& [name, value] : rec.problem.items()) {
    if (!value.is_number_integer()) throw InputError("", 0, "problem." + name, "expected an integer, got " + io::shown(value));
    r.problem[name] = value.get<std::int64_t>();
  }
  r.measured = rec.mode != "modeled";
  r.space = rec.space;
  const double bytes = rec.annotations.value("bytes_moved", 0.0);
  const double ceiling = rec.annotations.value("copy_ceiling_gbps", 0.0);
  // Only the ranked (successful) trials: the entry needs nothing else.
  for (const std::size_t i : rec.ranking()) {
    Evaluation e;
    e.config = rec.trials[i].config;
    // Its compiled resources, where the recording kept them: the entry keeps
    // them so the launcher can model it between swept sizes.
    // (merge_recordings checked them against their files.)
    if (i < rec.trial_annotations.size() && rec.trial_annotations[i].contains("resources"))
      e.resources = kernel_resources_from_json(io::JsonFields(rec.trial_annotations[i].at("resources")));
    e.timing = Timing{.median_s = *rec.trials[i].time_s};
    e.gbps = bytes > 0 ? bytes / e.timing->median_s / 1e9 : 0.0;
    e.fraction_of_ceiling = ceiling > 0 ? e.gbps / ceiling : 0.0;
    r.evaluations.push_back(std::move(e));
  }
  ProfileEntry entry = make_profile_entry(r, runner_ups);
  const auto rank = r.ranking();
  std::size_t files = merged.files.size();
  entry.rationale = rec.space.format(r.evaluations[rank.front()].config) + ": " +
                    number_text("%.1f us", entry.time_s * 1e6) + (r.measured ? " measured" : " predicted") +
                    ", the fastest of " + std::to_string(rank.size()) + " successful candidates (" +
                    std::to_string(rec.trials.size()) + " recorded) merged by memtune merge from " +
                    std::to_string(files) + (files == 1 ? " recording" : " recordings") + " (" + merged.coverage + ")";
  if (rank.size() > 1) {
    const Evaluation& second = r.evaluations[rank[1]];
    entry.rationale += "; runner-up " + rec.space.format(second.config) + " " +
                       number_text("%.1f us", second.timing->median_s * 1e6) + " (" +
                       number_text("%.1f%%", 100.0 * (second.timing->median_s / entry.time_s - 1.0)) + " slower)";
  }
  entry.rationale += ".";
  return entry;
}

} // namespace memtune
