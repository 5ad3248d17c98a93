#include <memtune/model/target_catalog.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memtune/io/json_document.hpp>
#include <memtune/model/occupancy.hpp>

#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace memtune::model {

namespace fs = std::filesystem;
using nlohmann::json;

TargetFileError::TargetFileError(std::string file, std::string field, const std::string& message)
    : InputError(std::move(file), 0, std::move(field), message) {}

namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

} // namespace

UnknownTargetError::UnknownTargetError(std::string requested, std::vector<std::string> known)
    : ArgumentError("", "unknown target '" + requested + "'; known targets: " + join(known, ", ")),
      requested_(std::move(requested)), known_(std::move(known)) {}

std::string normalize_target_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

namespace {

// Every field a target file must carry besides "sources", in file order.
// The figures among them (all but the names) each need a source.
const std::vector<std::string>& name_fields() {
  static const std::vector<std::string> f{"name", "display_name", "aliases"};
  return f;
}
const std::vector<std::string>& figure_fields() {
  static const std::vector<std::string> f{
      "cc_major", "cc_minor", "sm_count", "warp_size", "max_threads_per_sm", "max_warps_per_sm",
      "max_blocks_per_sm", "regs_per_sm", "smem_per_sm", "smem_carveouts_kb", "max_threads_per_block",
      "max_regs_per_block", "max_regs_per_thread", "smem_per_block", "smem_per_block_optin",
      "reserved_smem_per_block", "bank_count", "bank_widths_bytes", "l1_bytes", "l2_bytes",
      "dram_bandwidth_gbs", "memory_latency_ns", "sm_clock_mhz", "mem_clock_mhz", "l2_bandwidth_gbs",
      "schedulers_per_sm", "dispatch_per_scheduler", "fp32_lanes_per_sm", "l1_caches_global_loads",
      "read_only_cache_bytes", "l1_write_combining_lines"};
  return f;
}

// Reads typed fields from one JSON object, naming the file and field on failure.
class FieldReader {
public:
  FieldReader(const json& j, const std::string& origin) : j_(j), origin_(origin) {}

  const json& at(const std::string& field) const {
    auto it = j_.find(field);
    if (it == j_.end()) throw TargetFileError(origin_, field, "missing");
    return *it;
  }
  [[noreturn]] void wrong_type(const std::string& field, const char* expected) const {
    throw TargetFileError(origin_, field, std::string("expected ") + expected + ", got " + at(field).dump());
  }
  int integer(const std::string& field) const {
    const json& v = at(field);
    if (!fits_int(v)) wrong_type(field, "an integer");
    return v.get<int>();
  }
  // Also in range: 4294967428 must not become 132.
  static bool fits_int(const json& v) {
    return v.is_number_integer() && v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
  }
  std::size_t size(const std::string& field) const {
    const json& v = at(field);
    if (!v.is_number_integer() || v.get<long long>() < 0) wrong_type(field, "a non-negative integer [bytes]");
    return v.get<std::size_t>();
  }
  double number(const std::string& field) const {
    const json& v = at(field);
    if (!v.is_number()) wrong_type(field, "a number");
    return v.get<double>();
  }
  bool boolean(const std::string& field) const {
    const json& v = at(field);
    if (!v.is_boolean()) wrong_type(field, "true or false");
    return v.get<bool>();
  }
  std::string string(const std::string& field) const {
    const json& v = at(field);
    if (!v.is_string()) wrong_type(field, "a string");
    return v.get<std::string>();
  }
  std::vector<int> integers(const std::string& field) const {
    const json& v = at(field);
    if (!v.is_array()) wrong_type(field, "an array of integers");
    std::vector<int> out;
    for (const json& e : v) {
      if (!fits_int(e)) wrong_type(field, "an array of integers");
      out.push_back(e.get<int>());
    }
    return out;
  }
  std::vector<std::string> strings(const std::string& field) const {
    const json& v = at(field);
    if (!v.is_array()) wrong_type(field, "an array of strings");
    std::vector<std::string> out;
    for (const json& e : v) {
      if (!e.is_string()) wrong_type(field, "an array of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }

private:
  const json& j_;
  const std::string& origin_;
};

} // namespace

std::vector<std::string> target_problems(const Target& t) {
  std::vector<std::string> p;
  auto need = [&p](bool ok, const std::string& field, const std::string& rule, auto got) {
    if (ok) return;
    std::ostringstream s;
    s << field << ": " << rule << " (got " << got << ")";
    p.push_back(s.str());
  };
  need(!t.name.empty(), "name", "must not be empty", "\"\"");
  // The name is typed on command lines and used as the file name.
  need(std::all_of(t.name.begin(), t.name.end(),
                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }),
       "name", "must use only a-z, 0-9 and '-'", t.name);
  need(!t.display_name.empty(), "display_name", "must not be empty", "\"\"");
  // cuda_occupancy.h covers cc 3.x to 12.x; nothing older runs current toolkits.
  need(t.cc_major >= 3 && t.cc_major <= 12, "cc_major", "must be 3..12", t.cc_major);
  need(t.cc_minor >= 0 && t.cc_minor <= 9, "cc_minor", "must be 0..9", t.cc_minor);
  need(t.sm_count > 0, "sm_count", "must be > 0", t.sm_count);
  need(t.sm_count <= 1024, "sm_count", "must be <= 1024 (no GPU has more)", t.sm_count);
  need(t.warp_size == 32, "warp_size", "must be 32", t.warp_size);
  need(t.max_warps_per_sm > 0, "max_warps_per_sm", "must be > 0", t.max_warps_per_sm);
  need(t.max_threads_per_sm == t.max_warps_per_sm * t.warp_size, "max_threads_per_sm",
       "must equal max_warps_per_sm * warp_size", t.max_threads_per_sm);
  need(t.max_blocks_per_sm > 0, "max_blocks_per_sm", "must be > 0", t.max_blocks_per_sm);
  need(t.regs_per_sm > 0, "regs_per_sm", "must be > 0", t.regs_per_sm);
  need(t.max_regs_per_block > 0 && t.max_regs_per_block <= t.regs_per_sm, "max_regs_per_block",
       "must be in 1..regs_per_sm", t.max_regs_per_block);
  need(t.max_regs_per_thread > 0 && t.max_regs_per_thread <= 255, "max_regs_per_thread", "must be 1..255",
       t.max_regs_per_thread);
  need(t.smem_per_sm > 0, "smem_per_sm", "must be > 0", t.smem_per_sm);
  need(!t.smem_carveouts_kb.empty() && std::is_sorted(t.smem_carveouts_kb.begin(), t.smem_carveouts_kb.end()) &&
           static_cast<std::size_t>(t.smem_carveouts_kb.back()) * 1024 == t.smem_per_sm,
       "smem_carveouts_kb", "must be increasing and end at smem_per_sm / 1024",
       t.smem_carveouts_kb.empty() ? -1 : t.smem_carveouts_kb.back());
  need(t.max_threads_per_block > 0 && t.max_threads_per_block <= t.max_threads_per_sm &&
           t.max_threads_per_block % 32 == 0,
       "max_threads_per_block", "must be a multiple of 32 in 32..max_threads_per_sm", t.max_threads_per_block);
  need(t.smem_per_block > 0 && t.smem_per_block <= t.smem_per_block_optin, "smem_per_block",
       "must be in 1..smem_per_block_optin", t.smem_per_block);
  need(t.smem_per_block_optin <= t.smem_per_sm, "smem_per_block_optin", "must be <= smem_per_sm",
       t.smem_per_block_optin);
  need(t.reserved_smem_per_block < t.smem_per_block, "reserved_smem_per_block", "must be < smem_per_block",
       t.reserved_smem_per_block);
  need(t.bank_count == 32, "bank_count", "must be 32 (every NVIDIA GPU since Fermi)", t.bank_count);
  const bool widths_ok = !t.bank_widths_bytes.empty() && t.bank_widths_bytes.front() == 4 &&
                         std::all_of(t.bank_widths_bytes.begin(), t.bank_widths_bytes.end(),
                                     [](int w) { return w == 4 || w == 8; });
  need(widths_ok, "bank_widths_bytes", "must be [4] or [4, 8]", t.bank_widths_bytes.size());
  // Only Kepler's banks can be switched to 8 bytes (cudaDeviceSetSharedMemConfig).
  need(!t.has_bank_mode_choice() || t.cc_major == 3, "bank_widths_bytes", "only cc 3.x has an 8-byte mode",
       t.cc_major);
  need(t.l1_bytes > 0, "l1_bytes", "must be > 0", t.l1_bytes);
  need(t.l2_bytes > 0, "l2_bytes", "must be > 0", t.l2_bytes);
  // Plausible ranges, wide enough for any GPU: a figure outside is a typo that
  // would make every prediction absurd (1e-300 GB/s predicted 9.9e62 us).
  need(t.dram_bandwidth_gbs >= 1 && t.dram_bandwidth_gbs <= 1e5, "dram_bandwidth_gbs", "must be in 1..100000 [GB/s]",
       t.dram_bandwidth_gbs);
  need(t.memory_latency_ns >= 1 && t.memory_latency_ns <= 1e5, "memory_latency_ns", "must be in 1..100000 [ns]",
       t.memory_latency_ns);
  need(t.sm_clock_mhz >= 1 && t.sm_clock_mhz <= 1e4, "sm_clock_mhz", "must be in 1..10000 [MHz]", t.sm_clock_mhz);
  need(t.mem_clock_mhz >= 1 && t.mem_clock_mhz <= 1e5, "mem_clock_mhz", "must be in 1..100000 [MHz]", t.mem_clock_mhz);
  need(t.l2_bandwidth_gbs == 0 || (t.l2_bandwidth_gbs >= 1 && t.l2_bandwidth_gbs <= 1e6), "l2_bandwidth_gbs",
       "must be 0 (unknown) or in 1..1000000 [GB/s]", t.l2_bandwidth_gbs);
  need(t.schedulers_per_sm > 0 && t.schedulers_per_sm <= 16, "schedulers_per_sm", "must be 1..16", t.schedulers_per_sm);
  need(t.dispatch_per_scheduler == 1 || t.dispatch_per_scheduler == 2, "dispatch_per_scheduler", "must be 1 or 2",
       t.dispatch_per_scheduler);
  need(t.fp32_lanes_per_sm >= 32 && t.fp32_lanes_per_sm % 32 == 0, "fp32_lanes_per_sm",
       "must be a positive multiple of 32", t.fp32_lanes_per_sm);
  need(t.l1_write_combining_lines >= 0 && t.l1_write_combining_lines <= 64, "l1_write_combining_lines",
       "must be 0..64", t.l1_write_combining_lines);
  if (p.empty()) {
    // cuda_occupancy.h knows a fixed list of architectures: a target outside it cannot be modeled.
    try {
      (void)compute_occupancy(t, KernelResources{32, 16, 0, 0});
    } catch (const std::invalid_argument& e) {
      need(false, "cc_major", "compute capability " + std::to_string(t.cc_major) + "." + std::to_string(t.cc_minor) +
                                  " is unknown to this toolkit's cuda_occupancy.h, so it cannot be modeled",
           t.arch());
    }
  }
  return p;
}

Target parse_target(const json& j, const std::string& origin) {
  if (!j.is_object()) throw TargetFileError(origin, "", "expected a JSON object at the top level");
  const FieldReader r(j, origin);

  const int version = r.integer("schema_version");
  if (version != target_schema_version)
    throw TargetFileError(origin, "schema_version",
                          "unsupported version " + std::to_string(version) + " (this build reads " +
                              std::to_string(target_schema_version) + ")");

  // An unknown key is almost always a misspelt field; refusing it beats silently
  // using a default.
  std::set<std::string> known{"schema_version", "sources", "measured", "memory_bytes"};
  for (const auto& f : name_fields()) known.insert(f);
  for (const auto& f : figure_fields()) known.insert(f);
  for (const auto& item : j.items())
    if (!known.count(item.key())) throw TargetFileError(origin, item.key(), "unknown field");

  Target t;
  t.name = r.string("name");
  t.display_name = r.string("display_name");
  t.aliases = r.strings("aliases");
  t.cc_major = r.integer("cc_major");
  t.cc_minor = r.integer("cc_minor");
  t.sm_count = r.integer("sm_count");
  t.warp_size = r.integer("warp_size");
  t.max_threads_per_sm = r.integer("max_threads_per_sm");
  t.max_warps_per_sm = r.integer("max_warps_per_sm");
  t.max_blocks_per_sm = r.integer("max_blocks_per_sm");
  t.regs_per_sm = r.integer("regs_per_sm");
  t.smem_per_sm = r.size("smem_per_sm");
  t.smem_carveouts_kb = r.integers("smem_carveouts_kb");
  t.max_threads_per_block = r.integer("max_threads_per_block");
  t.max_regs_per_block = r.integer("max_regs_per_block");
  t.max_regs_per_thread = r.integer("max_regs_per_thread");
  t.smem_per_block = r.size("smem_per_block");
  t.smem_per_block_optin = r.size("smem_per_block_optin");
  t.reserved_smem_per_block = r.size("reserved_smem_per_block");
  t.bank_count = r.integer("bank_count");
  t.bank_widths_bytes = r.integers("bank_widths_bytes");
  t.l1_bytes = r.size("l1_bytes");
  t.l2_bytes = r.size("l2_bytes");
  t.dram_bandwidth_gbs = r.number("dram_bandwidth_gbs");
  t.memory_latency_ns = r.number("memory_latency_ns");
  t.sm_clock_mhz = r.number("sm_clock_mhz");
  t.mem_clock_mhz = r.number("mem_clock_mhz");
  t.l2_bandwidth_gbs = r.number("l2_bandwidth_gbs");
  t.schedulers_per_sm = r.integer("schedulers_per_sm");
  t.dispatch_per_scheduler = r.integer("dispatch_per_scheduler");
  t.fp32_lanes_per_sm = r.integer("fp32_lanes_per_sm");
  t.l1_caches_global_loads = r.boolean("l1_caches_global_loads");
  t.read_only_cache_bytes = r.size("read_only_cache_bytes");
  t.l1_write_combining_lines = r.integer("l1_write_combining_lines");
  // Optional (0: unknown) so that target files written before it still load.
  if (j.contains("memory_bytes")) t.memory_bytes = r.size("memory_bytes");

  // Optional (written by `memtune probe --save-target`): figures measured on the GPU.
  if (auto m = j.find("measured"); m != j.end()) {
    if (!m->is_object()) r.wrong_type("measured", "an object of measured figures");
    const FieldReader mr(*m, origin);
    Target::Measured measured;
    const std::map<std::string, double*> fields{{"copy_gbs", &measured.copy_gbs},
                                                {"float4_copy_gbs", &measured.float4_copy_gbs},
                                                {"dram_latency_ns", &measured.dram_latency_ns},
                                                {"l2_latency_ns", &measured.l2_latency_ns},
                                                {"l2_read_gbs", &measured.l2_read_gbs},
                                                {"block_launch_ns", &measured.block_launch_ns},
                                                {"l2_fetch_bytes", &measured.l2_fetch_bytes}};
    for (const auto& item : m->items()) {
      auto f = fields.find(item.key());
      if (f == fields.end()) throw TargetFileError(origin, "measured." + item.key(), "unknown field");
      if (!item.value().is_number() || item.value().get<double>() < 0)
        throw TargetFileError(origin, "measured." + item.key(), "expected a number >= 0, got " + item.value().dump());
      *f->second = item.value().get<double>();
    }
    t.measured = measured;
  }

  const json& sources = r.at("sources");
  if (!sources.is_object()) r.wrong_type("sources", "an object of field name -> source text");
  for (const auto& item : sources.items()) {
    if (!item.value().is_string() || item.value().get<std::string>().empty())
      throw TargetFileError(origin, "sources." + item.key(), "expected a non-empty string");
    if (std::find(figure_fields().begin(), figure_fields().end(), item.key()) == figure_fields().end() &&
        !(item.key() == "measured" && t.measured) && !(item.key() == "memory_bytes" && j.contains("memory_bytes")))
      throw TargetFileError(origin, "sources." + item.key(), "names no figure of the target");
    t.sources[item.key()] = item.value().get<std::string>();
  }
  for (const auto& f : figure_fields())
    if (!t.sources.count(f)) throw TargetFileError(origin, "sources." + f, "missing: every figure needs a public source");
  if (j.contains("memory_bytes") && !t.sources.count("memory_bytes"))
    throw TargetFileError(origin, "sources.memory_bytes", "missing: every figure needs a public source");

  t.origin = origin;
  const auto problems = target_problems(t);
  if (!problems.empty()) {
    const std::string& first = problems.front();
    throw TargetFileError(origin, first.substr(0, first.find(':')), first.substr(first.find(':') + 2) +
                              (problems.size() > 1 ? "; also " + join({problems.begin() + 1, problems.end()}, "; ")
                                                   : std::string{}));
  }
  return t;
}

Target load_target_file(const fs::path& file) {
  try {
    const io::JsonDocument doc = io::read_json_file(file);
    try {
      return parse_target(doc.root(), doc.origin());
    } catch (const InputError& e) {
      throw TargetFileError(doc.locate(e)); // with the line of the field
    }
  } catch (const TargetFileError&) {
    throw;
  } catch (const InputError& e) { // unreadable, not JSON
    throw TargetFileError(e);
  }
}

fs::path resolve_targets_dir(const std::vector<fs::path>& candidates) {
  if (const char* env = std::getenv("MEMTUNE_TARGETS_DIR"); env && *env) {
    // An explicit setting that points nowhere is a mistake to report, not to
    // paper over with the built-in catalogue.
    if (!fs::is_directory(env))
      throw std::runtime_error(std::string("MEMTUNE_TARGETS_DIR=") + env + " is not a directory");
    return env;
  }
  std::vector<std::string> tried;
  for (const auto& c : candidates) {
    if (!c.empty() && fs::is_directory(c)) return c;
    tried.push_back(c.string());
  }
  throw std::runtime_error("no target directory found: MEMTUNE_TARGETS_DIR is not set and none of [" +
                           join(tried, ", ") + "] exists");
}

TargetCatalog TargetCatalog::load_directory(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error("target directory " + dir.string() + " does not exist");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("target directory " + dir.string() + " holds no *.json file");

  TargetCatalog c;
  c.dir_ = dir;
  std::map<std::string, std::string> claimed; // normalized name -> target that claims it
  for (const auto& f : files) {
    Target t = load_target_file(f);
    if (f.stem().string() != t.name)
      throw TargetFileError(f.string(), "name", "'" + t.name + "' must match the file name '" + f.stem().string() + "'");
    std::vector<std::string> keys{t.name, t.display_name};
    keys.insert(keys.end(), t.aliases.begin(), t.aliases.end());
    std::set<std::string> own;
    for (const auto& k : keys) {
      const std::string n = normalize_target_name(k);
      if (own.count(n)) continue; // display_name may equal an alias of the same target
      own.insert(n);
      if (auto it = claimed.find(n); it != claimed.end())
        throw std::runtime_error("targets '" + it->second + "' and '" + t.name + "' both answer to '" + k + "'");
      claimed[n] = t.name;
    }
    c.targets_.push_back(std::move(t));
  }
  return c;
}

std::vector<std::string> TargetCatalog::names() const {
  std::vector<std::string> out;
  for (const auto& t : targets_) out.push_back(t.name);
  return out;
}

const Target* TargetCatalog::try_find(std::string_view name) const {
  const std::string key = normalize_target_name(name);
  if (key.empty()) return nullptr;
  for (const auto& t : targets_) {
    if (normalize_target_name(t.name) == key || normalize_target_name(t.display_name) == key) return &t;
    for (const auto& a : t.aliases)
      if (normalize_target_name(a) == key) return &t;
  }
  return nullptr;
}

const Target& TargetCatalog::find(std::string_view name) const {
  if (const Target* t = try_find(name)) return *t;
  throw UnknownTargetError(std::string(name), names());
}

} // namespace memtune::model
