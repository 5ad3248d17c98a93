#include <memtune/isolate/protocol.hpp>

#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/io/json_fields.hpp>

#include <memtune/isolate/frame.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

#include <memtune/probe/calibrate.hpp>

namespace memtune::isolation {

using nlohmann::json;

namespace {

json dim3_json(const Dim3& d) { return json::array({d.x, d.y, d.z}); }
Dim3 dim3_from_json(const json& j) { return {j.at(0).get<unsigned>(), j.at(1).get<unsigned>(), j.at(2).get<unsigned>()}; }

template <class T> std::optional<T> optional_field(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

const char* kind_name(WorkerError::Kind k) {
  switch (k) {
  case WorkerError::Kind::no_device: return "no_device";
  case WorkerError::Kind::description: return "description";
  case WorkerError::Kind::argument: return "argument";
  case WorkerError::Kind::setup: return "setup";
  case WorkerError::Kind::protocol: return "protocol";
  }
  return "protocol";
}

} // namespace

json config_values_json(const search::Config& config) {
  json j = json::object();
  for (const auto& [axis, value] : config.values()) j[axis] = value;
  return j;
}

search::Config config_from_values(const json& j) {
  search::Config c;
  for (const auto& [axis, value] : j.items()) c.set(axis, value.get<std::int64_t>());
  return c;
}

json launch_json(const LaunchSpec& l) {
  json j = {{"name_expression", l.name_expression}, {"options", l.options},        {"grid", dim3_json(l.grid)},
            {"block", dim3_json(l.block)},          {"dynamic_smem_bytes", l.dynamic_smem_bytes}};
  if (l.cooperative) j["cooperative"] = true;
  return j;
}

LaunchSpec launch_from_json(const json& j) {
  LaunchSpec l;
  l.name_expression = j.at("name_expression").get<std::string>();
  l.options = j.at("options").get<std::vector<std::string>>();
  l.grid = dim3_from_json(j.at("grid"));
  l.block = dim3_from_json(j.at("block"));
  l.dynamic_smem_bytes = j.at("dynamic_smem_bytes").get<std::size_t>();
  l.cooperative = j.contains("cooperative") && j.at("cooperative").get<bool>();
  return l;
}

json measure_json(const MeasureOptions& m) {
  return {{"flush_l2", m.flush_l2},         {"flush", to_string(m.flush)}, {"warmup", m.warmup},
          {"min_samples", m.min_samples},   {"max_samples", m.max_samples},
          {"target_spread", m.target_spread}, {"max_seconds", m.max_seconds},
          {"timeout_seconds", m.timeout_seconds},
          {"energy", {{"enabled", m.energy.enabled}, {"repeats", m.energy.repeats},
                      {"min_periods", m.energy.min_periods}, {"min_quanta", m.energy.min_quanta},
                      {"max_batch_seconds", m.energy.max_batch_seconds}}}};
}

MeasureOptions measure_from_json(const json& j) {
  MeasureOptions m;
  m.flush_l2 = j.at("flush_l2").get<bool>();
  m.flush = j.at("flush").get<std::string>() == "dirty" ? FlushKind::dirty : FlushKind::clean;
  m.warmup = j.at("warmup").get<int>();
  m.min_samples = j.at("min_samples").get<int>();
  m.max_samples = j.at("max_samples").get<int>();
  m.target_spread = j.at("target_spread").get<double>();
  m.max_seconds = j.at("max_seconds").get<double>();
  m.timeout_seconds = j.at("timeout_seconds").get<double>();
  const json& e = j.at("energy");
  m.energy.enabled = e.at("enabled").get<bool>();
  m.energy.repeats = e.at("repeats").get<int>();
  m.energy.min_periods = e.at("min_periods").get<double>();
  m.energy.min_quanta = e.at("min_quanta").get<double>();
  m.energy.max_batch_seconds = e.at("max_batch_seconds").get<double>();
  return m;
}

json timing_json(const Timing& t) {
  return {{"median_s", t.median_s}, {"min_s", t.min_s},     {"max_s", t.max_s},
          {"spread", t.spread},     {"samples", t.samples}, {"cold", t.cold}};
}

Timing timing_from_json(const json& j) {
  // Checked field by field: the journal reads these from a file (InputError
  // naming the field; never a cast of 1e300 to int).
  const io::JsonFields f(j);
  Timing t;
  t.median_s = f.at("median_s").number();
  t.min_s = f.at("min_s").number();
  t.max_s = f.at("max_s").number();
  t.spread = f.at("spread").number();
  t.samples = f.at("samples").integer<int>(0);
  t.cold = f.at("cold").boolean();
  return t;
}

json energy_json(const EnergyMeasurement& m) {
  return {{"joules_per_launch", m.joules_per_launch},
          {"min_j", m.min_j},
          {"max_j", m.max_j},
          {"spread", m.spread},
          {"mean_watts", m.mean_watts},
          {"idle_watts", m.idle_watts},
          {"repeats", m.repeats},
          {"launches_per_batch", m.launches_per_batch},
          {"batch_seconds", m.batch_seconds},
          {"resolution_j", m.resolution_j},
          {"period_s", m.period_s},
          {"source", to_string(m.source)}};
}

EnergyMeasurement energy_from_json(const json& j) {
  const io::JsonFields f(j);
  EnergyMeasurement m;
  // A batch's joules may dip below zero when the idle baseline overshoots a
  // near-idle kernel: the extremes are not bounded below by zero.
  m.joules_per_launch = f.at("joules_per_launch").number();
  m.min_j = f.at("min_j").number();
  m.max_j = f.at("max_j").number();
  m.spread = f.at("spread").number();
  m.mean_watts = f.at("mean_watts").number();
  m.idle_watts = f.at("idle_watts").number(0.0);
  m.repeats = f.at("repeats").integer<int>(1, 1000000);
  m.launches_per_batch = f.at("launches_per_batch").integer<int>(1, 1000000000);
  m.batch_seconds = f.at("batch_seconds").number(0.0);
  m.resolution_j = f.at("resolution_j").number(0.0);
  m.period_s = f.at("period_s").number(0.0);
  try {
    m.source = energy_source_from_string(f.at("source").string());
  } catch (const std::invalid_argument& e) {
    throw InputError("", 0, "source", e.what());
  }
  return m;
}

json ceiling_json(const CopyCeiling& c) {
  return {{"gbps", c.gbps}, {"bytes", c.bytes}, {"timing", timing_json(c.timing)}, {"l2_flush", c.l2_flush}};
}

CopyCeiling ceiling_from_json(const json& j) {
  const io::JsonFields f(j);
  CopyCeiling c;
  c.gbps = f.at("gbps").number(0.0);
  c.bytes = f.at("bytes").integer<std::size_t>();
  c.timing = timing_from_json(f.at("timing").value());
  if (j.contains("l2_flush")) c.l2_flush = f.at("l2_flush").string(); // journals of before the clean flush have none
  return c;
}

json target_wire_json(const Target& t) {
  json j = probe::target_file_json(t); // the catalogue's field names
  j["origin"] = t.origin;
  return j;
}

Target target_from_wire(const json& j) {
  Target t;
  t.name = j.at("name").get<std::string>();
  t.display_name = j.at("display_name").get<std::string>();
  t.aliases = j.at("aliases").get<std::vector<std::string>>();
  t.cc_major = j.at("cc_major").get<int>();
  t.cc_minor = j.at("cc_minor").get<int>();
  t.sm_count = j.at("sm_count").get<int>();
  t.warp_size = j.at("warp_size").get<int>();
  t.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
  t.max_warps_per_sm = j.at("max_warps_per_sm").get<int>();
  t.max_blocks_per_sm = j.at("max_blocks_per_sm").get<int>();
  t.regs_per_sm = j.at("regs_per_sm").get<int>();
  t.smem_per_sm = j.at("smem_per_sm").get<std::size_t>();
  t.smem_carveouts_kb = j.at("smem_carveouts_kb").get<std::vector<int>>();
  t.max_threads_per_block = j.at("max_threads_per_block").get<int>();
  t.max_regs_per_block = j.at("max_regs_per_block").get<int>();
  t.max_regs_per_thread = j.at("max_regs_per_thread").get<int>();
  t.smem_per_block = j.at("smem_per_block").get<std::size_t>();
  t.smem_per_block_optin = j.at("smem_per_block_optin").get<std::size_t>();
  t.reserved_smem_per_block = j.at("reserved_smem_per_block").get<std::size_t>();
  t.bank_count = j.at("bank_count").get<int>();
  t.bank_widths_bytes = j.at("bank_widths_bytes").get<std::vector<int>>();
  t.l1_bytes = j.at("l1_bytes").get<std::size_t>();
  t.l2_bytes = j.at("l2_bytes").get<std::size_t>();
  t.dram_bandwidth_gbs = j.at("dram_bandwidth_gbs").get<double>();
  t.memory_latency_ns = j.at("memory_latency_ns").get<double>();
  t.sm_clock_mhz = j.at("sm_clock_mhz").get<double>();
  t.mem_clock_mhz = j.at("mem_clock_mhz").get<double>();
  t.l2_bandwidth_gbs = j.at("l2_bandwidth_gbs").get<double>();
  t.schedulers_per_sm = j.at("schedulers_per_sm").get<int>();
  if (const auto m = j.find("measured"); m != j.end()) {
    Target::Measured measured;
    measured.copy_gbs = m->at("copy_gbs").get<double>();
    measured.float4_copy_gbs = m->at("float4_copy_gbs").get<double>();
    measured.dram_latency_ns = m->at("dram_latency_ns").get<double>();
    measured.l2_latency_ns = m->at("l2_latency_ns").get<double>();
    measured.l2_read_gbs = m->at("l2_read_gbs").get<double>();
    measured.block_launch_ns = m->at("block_launch_ns").get<double>();
    measured.l2_fetch_bytes = m->at("l2_fetch_bytes").get<double>();
    t.measured = measured;
  }
  t.sources = j.at("sources").get<std::map<std::string, std::string>>();
  t.origin = j.at("origin").get<std::string>();
  if (j.contains("memory_bytes")) t.memory_bytes = j.at("memory_bytes").get<std::uint64_t>();
  return t;
}

// DescriptionSource::Kind's names on the wire, in the enum's order.
constexpr std::string_view kDescriptionKinds[] = {"built_in", "file", "data"};

json to_json(const Hello& h) {
  const DescriptionSource& d = h.description;
  return {{"type", "hello"},
          {"protocol", kProtocolVersion},
          {"description",
           {{"kind", std::string(kDescriptionKinds[static_cast<std::size_t>(d.kind)])},
            {"name", d.name},
            {"path", d.path},
            {"content", d.content},
            {"fingerprint", d.fingerprint}}},
          {"problem", h.problem},
          {"seed", h.seed},
          {"device", h.device},
          {"measure", measure_json(h.measure)},
          {"cache_folder", h.cache_folder}};
}

Hello hello_from_json(const json& j) {
  if (j.at("protocol").get<int>() != kProtocolVersion)
    throw WorkerError(WorkerError::Kind::protocol, "protocol version " + j.at("protocol").dump() + ", this worker speaks " +
                                                       std::to_string(kProtocolVersion) +
                                                       " (memtune and memtune-worker come from different builds)");
  Hello h;
  const json& d = j.at("description");
  const std::string kind = d.at("kind").get<std::string>();
  const auto* known = std::find(std::begin(kDescriptionKinds), std::end(kDescriptionKinds), kind);
  if (known == std::end(kDescriptionKinds))
    throw ProtocolError("hello: description kind '" + kind + "' is none of built_in, file, data");
  h.description.kind = static_cast<DescriptionSource::Kind>(known - std::begin(kDescriptionKinds));
  h.description.name = d.at("name").get<std::string>();
  h.description.path = d.at("path").get<std::string>();
  h.description.content = d.at("content").get<std::string>();
  h.description.fingerprint = d.at("fingerprint").get<std::string>();
  h.problem = j.at("problem").get<Problem>();
  h.seed = j.at("seed").get<std::uint64_t>();
  h.device = j.at("device").get<int>();
  h.measure = measure_from_json(j.at("measure"));
  h.cache_folder = j.at("cache_folder").get<std::string>();
  return h;
}

json to_json(const Ready& r) {
  return {{"type", "ready"},      {"target", target_wire_json(r.target)}, {"pid", r.pid},
          {"setup_seconds", r.setup_seconds}, {"device_count", r.device_count}};
}

Ready ready_from_json(const json& j) {
  return {target_from_wire(j.at("target")), j.at("pid").get<long>(), j.at("setup_seconds").get<double>(),
          j.at("device_count").get<int>()};
}

json error_json(const WorkerError& e) { return {{"type", "error"}, {"kind", kind_name(e.kind)}, {"message", e.what()}}; }

WorkerError error_from_json(const json& j) {
  const std::string kind = j.at("kind").get<std::string>();
  WorkerError::Kind k = WorkerError::Kind::protocol;
  for (auto candidate : {WorkerError::Kind::no_device, WorkerError::Kind::description, WorkerError::Kind::argument,
                         WorkerError::Kind::setup})
    if (kind == kind_name(candidate)) k = candidate;
  return {k, j.at("message").get<std::string>()};
}

json to_json(const SetupRequest& s) {
  json j{{"type", "setup"},
         {"time_reference", s.time_reference},
         {"ceiling_bytes", s.ceiling_bytes},
         {"same_size_bytes", s.same_size_bytes}};
  j["expected_for"] = s.expected_for ? config_values_json(*s.expected_for) : json(nullptr);
  j["references"] = json::array();
  for (const LaunchRequest& r : s.references)
    j["references"].push_back({{"config", config_values_json(r.config)},
                               {"launch", launch_json(r.launch)},
                               {"lowered_name", r.lowered_name},
                               {"cubin_bytes", r.cubin.size()}});
  return j;
}

std::vector<char> setup_blob(const SetupRequest& s) {
  std::vector<char> blob;
  for (const LaunchRequest& r : s.references) blob.insert(blob.end(), r.cubin.begin(), r.cubin.end());
  return blob;
}

SetupRequest setup_from_json(const json& j, std::span<const char> blob) {
  SetupRequest s;
  s.time_reference = j.at("time_reference").get<bool>();
  s.ceiling_bytes = j.at("ceiling_bytes").get<std::size_t>();
  s.same_size_bytes = j.at("same_size_bytes").get<std::size_t>();
  if (const json& e = j.at("expected_for"); !e.is_null()) s.expected_for = config_from_values(e);
  std::size_t at = 0;
  for (const json& r : j.at("references")) {
    const auto bytes = r.at("cubin_bytes").get<std::size_t>();
    if (bytes > blob.size() - at)
      throw std::invalid_argument("setup: the references' cubins need more than the frame's " +
                                  std::to_string(blob.size()) + " bytes");
    s.references.push_back(LaunchRequest{config_from_values(r.at("config")), launch_from_json(r.at("launch")),
                                         r.at("lowered_name").get<std::string>(), blob.subspan(at, bytes)});
    at += bytes;
  }
  if (at != blob.size())
    throw std::invalid_argument("setup: " + std::to_string(blob.size() - at) + " bytes of the frame belong to no reference");
  return s;
}

json to_json(const SetupDone& s) {
  json j{{"type", "setup_done"},
         {"context_lost", s.context_lost},
         {"inputs_seconds", s.inputs_seconds},
         {"reference_seconds", s.reference_seconds},
         {"expected_seconds", s.expected_seconds},
         {"ceiling_seconds", s.ceiling_seconds},
         {"same_size_copy_seconds", s.same_size_copy_seconds}};
  j["reference_error"] = s.reference_error ? json(*s.reference_error) : json(nullptr);
  j["reference_time_s"] = s.reference_time_s ? json(*s.reference_time_s) : json(nullptr);
  j["ceiling"] = s.ceiling ? ceiling_json(*s.ceiling) : json(nullptr);
  j["same_size_copy"] = s.same_size_copy ? ceiling_json(*s.same_size_copy) : json(nullptr);
  return j;
}

SetupDone setup_done_from_json(const json& j) {
  SetupDone s;
  s.reference_error = optional_field<std::string>(j, "reference_error");
  s.reference_time_s = optional_field<double>(j, "reference_time_s");
  if (const json& c = j.at("ceiling"); !c.is_null()) s.ceiling = ceiling_from_json(c);
  if (const json& c = j.at("same_size_copy"); !c.is_null()) s.same_size_copy = ceiling_from_json(c);
  s.context_lost = j.at("context_lost").get<bool>();
  s.inputs_seconds = j.at("inputs_seconds").get<double>();
  s.reference_seconds = j.at("reference_seconds").get<double>();
  s.expected_seconds = j.at("expected_seconds").get<double>();
  s.ceiling_seconds = j.at("ceiling_seconds").get<double>();
  s.same_size_copy_seconds = j.at("same_size_copy_seconds").get<double>();
  return s;
}

json run_json(std::uint64_t id, const LaunchRequest& r) {
  return {{"type", "run"},
          {"id", id},
          {"config", config_values_json(r.config)},
          {"launch", launch_json(r.launch)},
          {"lowered_name", r.lowered_name}};
}

LaunchRequest run_from_json(const json& j, std::span<const char> blob) {
  return {config_from_values(j.at("config")), launch_from_json(j.at("launch")), j.at("lowered_name").get<std::string>(),
          blob};
}

json result_json(std::uint64_t id, const LaunchOutcome& o) {
  json outcome{{"status", to_string(o.status)},
               {"reason", o.reason},
               {"resources", kernel_resources_to_json(o.resources)},
               {"driver_blocks_per_sm", o.driver_blocks_per_sm},
               {"max_abs_error", o.max_abs_error},
               {"cuda_error", o.cuda_error},
               {"context_lost", o.context_lost},
               {"gpu_busy", o.gpu_busy}};
  outcome["timing"] = o.timing ? timing_json(*o.timing) : json(nullptr);
  outcome["energy"] = o.energy ? energy_json(*o.energy) : json(nullptr);
  outcome["energy_error"] = o.energy_error;
  return {{"type", "result"}, {"id", id}, {"outcome", outcome}};
}

LaunchOutcome outcome_from_json(const json& j) {
  const json& o = j.at("outcome");
  LaunchOutcome out;
  out.status = status_from_string(o.at("status").get<std::string>());
  out.reason = o.at("reason").get<std::string>();
  out.resources = kernel_resources_from_json(io::JsonFields(o.at("resources")));
  out.driver_blocks_per_sm = o.at("driver_blocks_per_sm").get<int>();
  // NaN and infinity travel as null (JSON has neither).
  out.max_abs_error = o.at("max_abs_error").is_null() ? std::nan("") : o.at("max_abs_error").get<double>();
  if (const json& t = o.at("timing"); !t.is_null()) out.timing = timing_from_json(t);
  if (const json& e = o.at("energy"); !e.is_null()) out.energy = energy_from_json(e);
  out.energy_error = o.at("energy_error").get<std::string>();
  out.cuda_error = o.at("cuda_error").get<std::string>();
  out.context_lost = o.at("context_lost").get<bool>();
  out.gpu_busy = o.at("gpu_busy").get<bool>();
  return out;
}

json baseline_json(const BaselineResult& b) {
  json j{{"name", b.name},           {"description", b.description}, {"available", b.available},
         {"verified", b.verified},   {"message", b.message},         {"gbps", b.gbps},
         {"max_abs_error", b.max_abs_error}};
  j["timing"] = b.timing ? timing_json(*b.timing) : json(nullptr);
  return {{"type", "baseline_result"}, {"baseline", j}};
}

BaselineResult baseline_from_json(const json& message) {
  const json& j = message.at("baseline");
  BaselineResult b;
  b.name = j.at("name").get<std::string>();
  b.description = j.at("description").get<std::string>();
  b.available = j.at("available").get<bool>();
  b.verified = j.at("verified").get<bool>();
  b.message = j.at("message").get<std::string>();
  b.gbps = j.at("gbps").get<double>();
  b.max_abs_error = j.at("max_abs_error").is_null() ? std::nan("") : j.at("max_abs_error").get<double>();
  if (const json& t = j.at("timing"); !t.is_null()) b.timing = timing_from_json(t);
  return b;
}

std::string message_type(const json& j) {
  const auto it = j.find("type");
  if (it == j.end() || !it->is_string()) throw ProtocolError("a worker message without a type: " + j.dump().substr(0, 200));
  return it->get<std::string>();
}

} // namespace memtune::isolation
