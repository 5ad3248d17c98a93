#include "kernel_tuner_format.hpp"

#include <memtune/io/json_document.hpp>
#include <memtune/io/version.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace memtune::cli {
namespace {

using ojson = nlohmann::ordered_json;

// The axes of a space from each parameter's values, in the given order.
search::Space space_from_values(const std::vector<std::pair<std::string, std::vector<ojson>>>& params) {
  search::Space space;
  for (const auto& [name, values] : params) {
    if (values.empty()) throw std::invalid_argument("parameter '" + name + "' has no values");
    const bool integral = std::all_of(values.begin(), values.end(), [](const ojson& v) { return v.is_number_integer(); });
    if (integral) {
      std::set<std::int64_t> sorted;
      for (const auto& v : values) sorted.insert(v.get<std::int64_t>());
      space.add(search::Axis::ordinal(name, {sorted.begin(), sorted.end()}, "imported from Kernel Tuner"));
    } else {
      std::vector<std::string> labels;
      for (const auto& v : values) {
        const std::string label = v.is_string() ? v.get<std::string>() : v.dump();
        if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      }
      space.add(search::Axis::categorical(name, labels, "imported from Kernel Tuner"));
    }
  }
  return space;
}

// A string member of `object`, or `fallback` when it is absent; any other
// type is the file's error, named with `where`.
std::string text_member(const ojson& object, const char* key, const std::string& fallback, const std::string& where) {
  if (!object.is_object()) throw std::invalid_argument(where + ": must be an object");
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_string()) throw std::invalid_argument(where + "." + key + ": must be a string, not " + it->type_name());
  return it->get<std::string>();
}

search::Config config_of(const search::Space& space, const ojson& values, const std::string& where) {
  search::Config c;
  for (const auto& axis : space.axes()) {
    if (!values.contains(axis.name)) throw std::invalid_argument(where + ": no value for parameter '" + axis.name + "'");
    const ojson& v = values.at(axis.name);
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    const auto value = axis.parse(text);
    if (!value) throw std::invalid_argument(where + ": '" + text + "' is not a value of parameter '" + axis.name + "'");
    c.set(axis.name, *value);
  }
  return c;
}

// Kernel Tuner's failure kinds (util.py's ErrorConfig subclasses in a cache,
// "invalidity" in a T4 file) as memtune's statuses. Kernel Tuner says
// InvalidConfig of a configuration its restrictions or the device's limits
// (threads, shared memory, registers) rule out.
std::string status_of_marker(const std::string& marker, const std::string& where) {
  if (marker == "CompilationFailedConfig" || marker == "compile") return "compile_failed";
  if (marker == "InvalidConfig" || marker == "constraints") return "exceeds_device_limits";
  // ErrorConfig: the base kind, a failure Kernel Tuner did not classify.
  if (marker == "RuntimeFailedConfig" || marker == "runtime" || marker == "ErrorConfig") return "launch_failed";
  if (marker == "correctness") return "wrong_result";
  throw std::invalid_argument(where + ": '" + marker +
                              "' is not a Kernel Tuner failure (CompilationFailedConfig, RuntimeFailedConfig, "
                              "InvalidConfig, ErrorConfig; in T4: compile, runtime, constraints, correctness)");
}

// Kernel Tuner has no kind for a wrong result or a timeout: it reports
// both as a runtime failure.
const char* marker_of_status(const std::string& status) {
  if (status == "compile_failed") return "CompilationFailedConfig";
  if (status == "exceeds_device_limits") return "InvalidConfig";
  return "RuntimeFailedConfig";
}

// A categorical label as the value Kernel Tuner had: a label that reads as a
// JSON number or boolean was one (space_from_values wrote it with dump()),
// any other is a string. Floats stay floats on the way back.
ojson value_of_label(const std::string& label) {
  if (!label.empty() && (label == "true" || label == "false" || label.front() == '-' ||
                         std::isdigit(static_cast<unsigned char>(label.front())))) {
    const ojson v = ojson::parse(label, nullptr, false);
    if (v.is_number() || v.is_boolean()) return v;
  }
  return label;
}

// Python's str() of a value, as Kernel Tuner joins a cache key: True, not true.
std::string python_text(const ojson& v) {
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

double seconds(double value, const std::string& unit, const std::string& where) {
  if (unit == "ms" || unit.empty()) return value * 1e-3;
  if (unit == "s") return value;
  if (unit == "us") return value * 1e-6;
  if (unit == "ns") return value * 1e-9;
  throw std::invalid_argument(where + ": time unit '" + unit + "' (expected ms, s, us or ns)");
}

search::Trial ok_trial(search::Config config, double time_s, const std::string& where) {
  if (!(time_s > 0)) throw std::invalid_argument(where + ": the time must be positive");
  search::Trial t;
  t.config = std::move(config);
  t.time_s = time_s;
  return t;
}

search::Trial failed_trial(search::Config config, const std::string& marker, const std::string& where) {
  search::Trial t;
  t.config = std::move(config);
  t.status = status_of_marker(marker, where);
  t.reason = "Kernel Tuner: " + marker;
  return t;
}

// Kernel Tuner's own recovery of a cache it was still appending to: drop a
// trailing comma and close the "cache" object and the document.
std::string closed_cache_text(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  const std::string tail = text.size() >= 3 ? text.substr(text.size() - 3) : text;
  if (!text.empty() && tail != "}\n}" && tail != "}}}") {
    if (text.back() == ',') text.pop_back();
    text += "}\n}";
  }
  return text;
}

// nlohmann keeps the last of duplicate keys silently: io::parse_json refuses
// them (naming the key and line), as every memtune reader does.
void refuse_duplicate_keys(const std::string& text) { (void)io::parse_json(text, "the Kernel Tuner file"); }

ojson parse(const std::string& text) {
  try {
    ojson doc = ojson::parse(text);
    refuse_duplicate_keys(text);
    return doc;
  } catch (const ojson::parse_error& e) {
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
    throw std::invalid_argument("line " + std::to_string(line) + ": not valid JSON: " + e.what());
  }
}

} // namespace

search::Recording recording_from_kernel_tuner_cache(const std::string& text, const ImportOptions& o) {
  ojson doc;
  try {
    doc = ojson::parse(text);
    refuse_duplicate_keys(text);
  } catch (const ojson::parse_error&) {
    doc = parse(closed_cache_text(text)); // still open: close it as Kernel Tuner does, or say where it breaks
  }
  if (!doc.is_object() || !doc.contains("cache") || !doc.at("cache").is_object())
    throw std::invalid_argument("not a Kernel Tuner cache: no \"cache\" object");
  if (!doc.contains("tune_params") || !doc.at("tune_params").is_object())
    throw std::invalid_argument("not a Kernel Tuner cache: no \"tune_params\" object");
  std::vector<std::pair<std::string, std::vector<ojson>>> params;
  for (const auto& [name, values] : doc.at("tune_params").items()) {
    if (!values.is_array()) throw std::invalid_argument("tune_params." + name + " must be an array");
    params.emplace_back(name, std::vector<ojson>(values.begin(), values.end()));
  }
  search::Recording rec;
  rec.space = space_from_values(params);
  rec.tool = "Kernel Tuner cache, imported by memtune " + std::string(kVersion);
  rec.template_name = !o.template_name.empty() ? o.template_name : text_member(doc, "kernel_name", "kernel", "the cache");
  // Kernel Tuner's C backend writes "" as the device.
  std::string device = !o.device_name.empty() ? o.device_name : text_member(doc, "device_name", "", "the cache");
  rec.device = {{"name", device.empty() ? "unknown device" : device}};
  if (rec.template_name.empty())
    throw std::invalid_argument("\"kernel_name\" is empty: name the kernel with --template NAME");
  if (doc.contains("problem_size")) rec.problem = {{"problem_size", doc.at("problem_size")}};
  std::map<search::Config, std::string> seen; // config: the cache key that had it first
  for (const auto& [key, entry] : doc.at("cache").items()) {
    const std::string where = "cache entry \"" + key + "\"";
    if (!entry.is_object()) throw std::invalid_argument(where + ": must be an object");
    search::Config config = config_of(rec.space, entry, where);
    if (const auto [at, added] = seen.emplace(config, key); !added)
      throw std::invalid_argument(where + ": the same configuration as cache entry \"" + at->second + "\"");
    // A failed configuration: Kernel Tuner 1.x writes the failure's kind in
    // "__error__" (and no "time"); earlier versions wrote it as the "time".
    if (const auto error = entry.find("__error__"); error != entry.end()) {
      if (!error->is_string()) throw std::invalid_argument(where + ".__error__: must be a string, not " + error->type_name());
      rec.trials.push_back(failed_trial(std::move(config), error->get<std::string>(), where + ".__error__"));
      continue;
    }
    if (!entry.contains("time")) throw std::invalid_argument(where + ": no \"time\" and no \"__error__\"");
    const ojson& time = entry.at("time");
    if (time.is_number()) rec.trials.push_back(ok_trial(std::move(config), seconds(time.get<double>(), "ms", where), where));
    else if (time.is_string()) rec.trials.push_back(failed_trial(std::move(config), time.get<std::string>(), where + ".time"));
    else throw std::invalid_argument(where + ": \"time\" must be a number [ms] or an error marker");
  }
  return rec;
}

search::Recording recording_from_t4(const ojson& doc, const ImportOptions& o) {
  if (!doc.is_object() || !doc.contains("results") || !doc.at("results").is_array())
    throw std::invalid_argument("not a T4 results file: no \"results\" array");
  const ojson& results = doc.at("results");
  // The file lists configurations, not the parameters' values: the axes are
  // the values seen, in the order of the first configuration's keys.
  std::vector<std::pair<std::string, std::vector<ojson>>> params;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ojson& c = results[i].is_object() ? results[i].value("configuration", ojson()) : ojson();
    if (!c.is_object()) throw std::invalid_argument("results[" + std::to_string(i) + "]: no \"configuration\" object");
    for (const auto& item : c.items()) {
      const std::string& name = item.key();
      const ojson& value = item.value();
      auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
      if (it == params.end()) it = params.insert(params.end(), {name, {}});
      if (std::find(it->second.begin(), it->second.end(), value) == it->second.end()) it->second.push_back(value);
    }
  }
  search::Recording rec;
  rec.space = space_from_values(params);
  rec.tool = "T4 results " + text_member(doc, "schema_version", "?", "the results file") + ", imported by memtune " + kVersion;
  rec.template_name = o.template_name.empty() ? "kernel" : o.template_name;
  rec.device = {{"name", o.device_name.empty() ? "unknown device" : o.device_name}};
  std::set<search::Config> seen;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = "results[" + std::to_string(i) + "]";
    const ojson& r = results[i];
    search::Config config = config_of(rec.space, r.at("configuration"), where);
    if (!seen.insert(config).second) continue; // a strategy may revisit: the first evaluation counts
    const std::string invalidity = text_member(r, "invalidity", "correct", where);
    if (invalidity != "correct") {
      rec.trials.push_back(failed_trial(std::move(config), invalidity, where + ".invalidity"));
      continue;
    }
    const ojson measurements = r.value("measurements", ojson::array());
    if (!measurements.is_array()) throw std::invalid_argument(where + ".measurements: must be an array");
    const ojson* time = nullptr;
    for (const auto& m : measurements)
      if (text_member(m, "name", "", where + ".measurements[]") == "time") time = &m;
    if (!time || !time->contains("value") || !time->at("value").is_number())
      throw std::invalid_argument(where + ": a correct result needs a \"time\" measurement");
    rec.trials.push_back(
        ok_trial(std::move(config), seconds(time->at("value").get<double>(), text_member(*time, "unit", "ms", where), where), where));
  }
  return rec;
}

search::Recording recording_from_kernel_tuner(const std::string& text, const ImportOptions& o) {
  // A T4 file is always complete JSON; a cache may be open (no closing brackets).
  try {
    try {
      const ojson doc = ojson::parse(text);
      refuse_duplicate_keys(text);
      if (doc.is_object() && doc.contains("results")) return recording_from_t4(doc, o);
    } catch (const ojson::parse_error&) {
    }
    return recording_from_kernel_tuner_cache(text, o);
  } catch (const ojson::exception& e) {
    // A value of a type the readers above do not check for (their checks
    // name the entry): still the file's error, never an escaped exception.
    throw std::invalid_argument(std::string("a value of the wrong type: ") + e.what());
  }
}

ojson kernel_tuner_cache(const search::Recording& rec) {
  ojson tune_params = ojson::object();
  ojson keys = ojson::array();
  for (const auto& a : rec.space.axes()) {
    keys.push_back(a.name);
    ojson values = ojson::array();
    for (const auto v : a.values) {
      if (a.kind == search::AxisKind::ordinal) values.push_back(v);
      else values.push_back(value_of_label(a.format(v)));
    }
    tune_params[a.name] = values;
  }
  ojson problem_size = ojson::array();
  for (const auto& [name, value] : rec.problem.items()) {
    if (value.is_number_integer()) problem_size.push_back(value.get<std::int64_t>());
    // An imported cache's own problem_size (a list of integers) goes back as it came.
    if (name == "problem_size" && value.is_array())
      for (const auto& v : value)
        if (v.is_number_integer()) problem_size.push_back(v.get<std::int64_t>());
  }
  if (problem_size.empty()) problem_size.push_back(1);
  ojson cache = ojson::object();
  for (const auto& t : rec.trials) {
    ojson entry = ojson::object();
    std::string key;
    for (const auto& a : rec.space.axes()) {
      const std::int64_t v = t.config.at(a.name);
      const ojson value = a.kind == search::AxisKind::ordinal ? ojson(v) : value_of_label(a.format(v));
      entry[a.name] = value;
      key += (key.empty() ? "" : ",") + python_text(value);
    }
    if (t.ok()) {
      const double ms = *t.time_s * 1e3;
      entry["time"] = ms;
      entry["times"] = ojson::array({ms});
    } else {
      entry["time"] = marker_of_status(t.status); // what every Kernel Tuner version reads
    }
    entry["compile_time"] = 0.0;
    entry["verification_time"] = 0.0;
    entry["benchmark_time"] = t.ok() ? *t.time_s * 1e3 : 0.0;
    entry["strategy_time"] = 0.0;
    entry["framework_time"] = 0.0;
    entry["timestamp"] = "";
    cache[key] = entry;
  }
  return {{"device_name", rec.device.value("name", std::string("unknown device"))},
          {"kernel_name", rec.template_name},
          {"problem_size", problem_size},
          {"tune_params_keys", keys},
          {"tune_params", tune_params},
          {"objective", "time"},
          {"cache", cache}};
}

} // namespace memtune::cli
