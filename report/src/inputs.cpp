#include <memtune/report/inputs.hpp>

#include <memtune/io/json_document.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/catalogue.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace memtune::report {
namespace {

std::optional<double> number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return std::nullopt;
  return j.at(key).get<double>();
}

std::string string_or(const nlohmann::json& j, const char* key, const std::string& fallback = {}) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : fallback;
}

// The trials of a --json document written before it carried "trials": the
// ranked list (cut at --top) and the failures, evaluation order unknown.
nlohmann::json trials_from_ranked(const nlohmann::json& doc) {
  nlohmann::json trials = nlohmann::json::array();
  for (const char* key : {"ranked", "failures"})
    for (const auto& e : doc.value(key, nlohmann::json::array())) {
      nlohmann::json t{{"config", e.at("config")}, {"status", e.value("status", "ok")}};
      if (t["status"] == "ok") t["time_s"] = e.at("time_s");
      else if (e.contains("reason")) t["reason"] = e["reason"];
      trials.push_back(std::move(t));
    }
  return trials;
}

std::optional<double> json_to5(const nlohmann::json& result) {
  const auto& s = result.value("evaluations_to_within_5pct", nlohmann::json::object());
  if (!s.is_object() || !s.contains("median") || !s["median"].is_number()) return std::nullopt;
  return s["median"].get<double>();
}

std::vector<double> doubles(const nlohmann::json& j) {
  std::vector<double> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) out.push_back(v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN());
  return out;
}

void load_bench(const nlohmann::json& doc, const std::string& source, Inputs& inputs) {
  const auto& results = doc.at("results");
  if (!results.is_array()) throw std::invalid_argument("'results' must be an array");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    BenchCurve c;
    c.source = source;
    c.tool = string_or(doc, "tool");
    c.recording = string_or(r, "recording");
    c.strategy = string_or(r, "strategy");
    if (c.recording.empty() || c.strategy.empty())
      throw std::invalid_argument("results[" + std::to_string(i) + "]: needs 'recording' and 'strategy'");
    c.configs = r.value("configs", std::size_t{0});
    c.optimum_s = r.value("optimum_s", 0.0);
    c.to5_median = json_to5(r);
    if (r.contains("best_so_far")) {
      const auto& b = r.at("best_so_far");
      c.median = doubles(b.value("median", nlohmann::json::array()));
      c.q1 = doubles(b.value("q1", nlohmann::json::array()));
      c.q3 = doubles(b.value("q3", nlohmann::json::array()));
    }
    inputs.curves.push_back(std::move(c));
  }
}

void load_figures(const nlohmann::json& doc, const std::string& source, Inputs& inputs) {
  DeviceFigures f;
  f.source = source;
  f.device_name = string_or(doc, "display_name", string_or(doc, "name"));
  f.peak_gbps = doc.value("dram_bandwidth_gbs", 0.0);
  if (doc.contains("measured")) f.copy_gbps = number(doc.at("measured"), "copy_gbs");
  inputs.figures.push_back(std::move(f));
}

} // namespace

std::string Run::device_name() const { return string_or(device, "name", "unknown device"); }

std::string Run::problem_text() const {
  // A built-in template's choices by their labels ("op=read", not "op=0"), as the CLI takes them.
  for (const KernelDescription* k : templates::descriptions()) {
    if (k->name != template_name) continue;
    Problem p;
    bool integers = true;
    for (const auto& [name, value] : problem.items()) {
      if (!value.is_number_integer()) integers = false;
      else p[name] = value.get<std::int64_t>();
    }
    if (integers) return format_problem(p, k->problem);
  }
  std::string s;
  for (const auto& [k, v] : problem.items()) s += (s.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

const search::Trial* Run::best() const {
  const search::Trial* best = nullptr;
  for (const auto& t : trials)
    if (t.ok() && (!best || *t.time_s < *best->time_s)) best = &t;
  return best;
}

bool Run::complete() const {
  std::set<search::Config> seen;
  for (const auto& t : trials) seen.insert(t.config);
  for (const auto& c : space.enumerate())
    if (!seen.count(c)) return false;
  return true;
}

std::vector<int> Run::gpus() const {
  std::set<int> seen;
  for (const auto& d : trial_devices)
    if (d) seen.insert(*d);
  return {seen.begin(), seen.end()};
}

Run run_from_json(const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object()) throw std::invalid_argument("expected a JSON object");
  const bool tuning_output = doc.contains("ranked");
  // Both kinds share the recording's core; the recording reader checks it.
  nlohmann::json core{{"schema_version", doc.value("schema_version", 0)},
                      {"tool", doc.value("tool", std::string{})},
                      {"template", doc.value("template", nlohmann::json())},
                      {"problem", doc.value("problem", nlohmann::json::object())},
                      {"device", doc.value("device", nlohmann::json::object())},
                      {"space", doc.value("space", nlohmann::json())},
                      {"trials", doc.contains("trials") ? doc.at("trials") : trials_from_ranked(doc)}};
  const search::Recording rec = search::Recording::from_json(core);
  Run run;
  run.source = source;
  run.template_name = rec.template_name;
  run.problem = rec.problem;
  run.device = rec.device;
  run.tool = rec.tool;
  run.space = rec.space;
  run.trials = rec.trials;
  // Energy per trial, where the document has it (a number, finite and positive; else left out).
  if (doc.contains("trials") && doc.at("trials").is_array() && doc.at("trials").size() == run.trials.size()) {
    bool any = false;
    std::vector<std::optional<double>> joules;
    for (const auto& t : doc.at("trials")) {
      std::optional<double> j;
      if (t.is_object() && t.contains("joules_per_launch") && t.at("joules_per_launch").is_number()) {
        const double v = t.at("joules_per_launch").get<double>();
        if (std::isfinite(v) && v > 0) j = v;
      }
      any = any || j.has_value();
      joules.push_back(j);
    }
    if (any) run.joules_per_launch = std::move(joules);
  }
  // The GPU of each trial, where the document has it (an ordinal; else left out).
  if (doc.contains("trials") && doc.at("trials").is_array() && doc.at("trials").size() == run.trials.size()) {
    std::vector<std::optional<int>> devices;
    bool any = false;
    for (const auto& t : doc.at("trials")) {
      std::optional<int> d;
      if (t.is_object() && t.contains("device") && t.at("device").is_number_integer()) {
        const auto v = t.at("device").get<std::int64_t>();
        if (v >= 0 && v < 1024) d = static_cast<int>(v);
      }
      any = any || d.has_value();
      devices.push_back(d);
    }
    if (any) run.trial_devices = std::move(devices);
  }
  run.measured = string_or(doc, "mode", "measured") != "modeled";
  run.target = string_or(doc, "target");
  run.strategy = string_or(doc, "strategy");
  run.stop_reason = string_or(doc, "stop_reason");
  run.wall_seconds = number(doc, "wall_seconds");
  run.bytes_moved = number(doc, "bytes_moved");
  run.peak_gbps = number(doc, "peak_dram_gbps");
  if (doc.contains("copy_ceiling")) run.copy_ceiling_gbps = number(doc.at("copy_ceiling"), "gbps");
  if (!run.copy_ceiling_gbps) run.copy_ceiling_gbps = number(doc, "copy_ceiling_gbps"); // a recording's flat key
  if (run.peak_gbps && *run.peak_gbps <= 0) run.peak_gbps.reset();
  if (doc.contains("model_bound") && doc["model_bound"].value("not_compiled", 0) > 0)
    run.notes.push_back(std::to_string(doc["model_bound"].value("not_compiled", 0)) +
                        " more configurations were not compiled: the model's bound put them behind the " +
                        std::to_string(doc["model_bound"].value("exact_top", 0)) +
                        " best (a --record run predicts every one), so the plots show the evaluated ones only");
  if (tuning_output && !doc.contains("trials")) {
    run.order_known = false;
    run.notes.push_back("this --json output has only the ranked top and the failures (written before runs kept every "
                        "trial): the plots show those, in no evaluation order");
  }
  return run;
}

void load_input(const std::filesystem::path& path, Inputs& inputs) {
  // Syntax errors, 1e400, duplicate keys and deep nests with the file and line.
  const io::JsonDocument document = io::read_json_file(path);
  const nlohmann::json& doc = document.root();
  const std::string source = path.string();
  try {
    if (!doc.is_object()) throw std::invalid_argument("expected a JSON object at the top level");
    if (doc.contains("results")) return load_bench(doc, source, inputs);
    if (doc.contains("space") && (doc.contains("trials") || doc.contains("ranked")))
      return inputs.runs.push_back(run_from_json(doc, source));
    if (doc.contains("dram_bandwidth_gbs") && doc.contains("display_name")) return load_figures(doc, source, inputs);
    throw std::invalid_argument("not a memtune run (--json), recording (--record), search benchmark (--json) or "
                                "target file: expected 'space' with 'trials', 'results', or 'dram_bandwidth_gbs'");
  } catch (const InputError& e) { // a field of a recording: with its line
    throw document.locate(e);
  } catch (const std::exception& e) { // invalid_argument, and nlohmann's type errors
    throw std::runtime_error(source + ": " + io::without_json_prefix(e.what()));
  }
}

void complete_from_catalogues(Inputs& inputs) {
  std::optional<model::TargetCatalog> catalog;
  try {
    catalog = load_targets();
  } catch (const std::exception&) {
    // No catalogue (an uninstalled binary moved away): runs keep what they carry.
  }
  for (Run& run : inputs.runs) {
    for (const DeviceFigures& f : inputs.figures) {
      if (f.device_name != run.device_name() || !run.measured) continue;
      if (!run.copy_ceiling_gbps && f.copy_gbps) {
        run.copy_ceiling_gbps = f.copy_gbps;
        run.notes.push_back("copy ceiling from " + std::filesystem::path(f.source).filename().string());
      }
      if (!run.peak_gbps && f.peak_gbps > 0) run.peak_gbps = f.peak_gbps;
    }
    if (!run.peak_gbps && catalog) {
      const Target* t = catalog->try_find(run.measured ? run.device_name() : (run.target.empty() ? run.device_name() : run.target));
      if (t) run.peak_gbps = t->dram_bandwidth_gbs;
    }
    if (!run.bytes_moved) {
      for (const KernelDescription* k : templates::descriptions()) {
        if (k->name != run.template_name) continue;
        try {
          Problem p;
          for (const auto& [name, value] : run.problem.items())
            if (value.is_number_integer()) p[name] = value.get<std::int64_t>();
          run.bytes_moved = static_cast<double>(k->bytes_moved(k->complete(p)));
        } catch (const std::exception& e) {
          run.notes.push_back(std::string("bytes moved unknown: ") + e.what());
        }
      }
    }
  }
}

} // namespace memtune::report
