#include <memtune/io/atomic_file.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/tune/search_options.hpp>
#include <memtune/io/version.hpp>

#include <memtune/io/json_document.hpp>
#include <memtune/io/json_fields.hpp>

#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/io/digest.hpp>
#include <memtune/isolate/protocol.hpp>
#include <memtune/io/utc_time.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace memtune {

using nlohmann::json;

namespace {

// Header fields that must match to resume, in the order they are checked,
// with what they are for people.
const std::vector<std::pair<const char*, const char*>>& resume_fields() {
  static const std::vector<std::pair<const char*, const char*>> fields{
      {"description", "kernel description"}, {"problem", "problem"},
      {"mode", "mode"},                      {"device", "GPU"},
      {"target", "target"},                  {"compiled_for", "architecture"},
      {"shard", "shard"}, // before the space: a shard's space is its part of the whole
      {"space_digest", "search space"},      {"strategy", "strategy"},
      {"seed", "seed"},                      {"model_prior", "bayes prior"},
      {"measure", "measurement protocol"}};
  return fields;
}

std::string shown(const json& j) {
  std::string text = j.dump();
  return text.size() > 160 ? text.substr(0, 157) + "..." : text;
}

} // namespace

std::string space_digest(const search::Space& space) { return digest128(space.to_json().dump()); }

json journal_header(const TuningResult& r, const SearchOptions& o, const MeasureOptions& measure_options) {
  json measure = isolation::measure_json(measure_options);
  measure.erase("timeout_seconds"); // the watchdog's business: may change between the runs
  // A run without energy has the header it had before energy existed, so its journals still resume.
  if (!measure_options.energy.enabled) measure.erase("energy");
  return {{"journal", "memtune"},
          {"journal_version", kJournalVersion},
          {"tool", std::string("memtune ") + kVersion},
          {"description", {{"name", r.template_name}, {"fingerprint", r.kernel_fingerprint}}},
          {"problem", r.problem},
          {"mode", r.measured ? "measured" : "modeled"},
          {"target", r.target_name},
          {"device", r.device.to_json()},
          {"compiled_for", r.compiled_for_cc},
          {"space_digest", space_digest(r.space)},
          {"space", r.space.to_json()},      // not compared on resume (the digest is): for memtune merge
          {"bytes_moved", r.bytes_moved},    // the same: what a merged recording's GB/s need
          {"peak_dram_gbps", r.peak_dram_gbs},
          {"strategy", o.strategy},
          {"seed", o.seed},
          {"model_prior", o.strategy == "bayes" && o.model_prior},
          {"measure", measure},
          {"shard", o.shard ? json(o.shard->to_string()) : json(nullptr)},
          {"started_at", utc_now("%Y-%m-%dT%H:%M:%SZ")}};
}

json journal_line(const search::Space& space, const Evaluation& e, std::size_t index) {
  json j{{"candidate", index},
         {"config", space.config_to_json(e.config)},
         {"status", to_string(e.status)},
         {"reason", e.reason},
         {"resources", kernel_resources_to_json(e.resources)},
         {"compile_seconds", e.compile_seconds},
         {"compile_cached", e.compile_cached},
         {"dynamic_smem_bytes", e.dynamic_smem_bytes},
         {"block_threads", e.block_threads},
         {"driver_blocks_per_sm", e.driver_blocks_per_sm},
         {"max_abs_error", e.max_abs_error},
         {"gbps", e.gbps},
         {"fraction_of_ceiling", e.fraction_of_ceiling},
         {"fraction_of_peak", e.fraction_of_peak}};
  if (e.grid_blocks > 0) j["grid_blocks"] = e.grid_blocks;
  if (e.device >= 0) j["device"] = e.device; // the GPU it ran on (--devices)
  if (!e.compiler.empty()) j["compiler"] = e.compiler;
  if (!e.compile_warnings.empty()) j["compile_warnings"] = e.compile_warnings;
  j["timing"] = e.timing ? isolation::timing_json(*e.timing) : json(nullptr);
  if (e.energy) j["energy"] = isolation::energy_json(*e.energy); // only runs that measured it
  if (!e.energy_error.empty()) j["energy_error"] = e.energy_error;
  return j;
}

Evaluation evaluation_from_journal_line(const search::Space& space, const json& j, const std::string& file,
                                        std::size_t line) {
  const io::JsonFields f(j);
  std::string field; // the field being read, for errors that do not name one
  try {
    Evaluation e;
    field = "config";
    e.config = space.config_from_json(j.at(field));
    if (auto why = space.violation(e.config)) throw std::invalid_argument("not in this run's space: " + *why);
    field = "status";
    e.status = status_from_string(f.at(field).string());
    field = "";
    e.reason = f.at("reason").string();
    e.resources = kernel_resources_from_json(f.at("resources"));
    e.compile_seconds = f.at("compile_seconds").number(0.0);
    e.compile_cached = f.at("compile_cached").boolean();
    e.dynamic_smem_bytes = f.at("dynamic_smem_bytes").integer<std::size_t>();
    e.block_threads = f.at("block_threads").integer<int>(0);
    e.driver_blocks_per_sm = f.at("driver_blocks_per_sm").integer<int>(-1); // -1: not known
    // NaN and infinity are written as null.
    e.max_abs_error = f.at("max_abs_error").value().is_null() ? std::nan("") : f.at("max_abs_error").number();
    e.gbps = f.at("gbps").number(0.0);
    e.fraction_of_ceiling = f.at("fraction_of_ceiling").number(0.0);
    e.fraction_of_peak = f.at("fraction_of_peak").number(0.0);
    if (j.contains("grid_blocks")) // a Dim3's product: at most (2^31 - 1) x 65535 x 65535
      e.grid_blocks = f.at("grid_blocks").integer<std::uint64_t>(1, std::uint64_t{1} << 63);
    if (j.contains("device")) e.device = f.at("device").integer<int>(0, 1023); // older journals: not known
    if (j.contains("compiler")) e.compiler = f.at("compiler").string();
    if (j.contains("compile_warnings")) e.compile_warnings = f.at("compile_warnings").string();
    field = "timing";
    if (!f.at(field).value().is_null()) {
      e.timing = isolation::timing_from_json(f.at(field).value());
      if (!(e.timing->median_s > 0)) throw std::invalid_argument("median_s must be a positive number");
    }
    field = "";
    if (j.contains("energy")) {
      field = "energy";
      e.energy = isolation::energy_from_json(f.at(field).value());
      field = "";
    }
    if (j.contains("energy_error")) e.energy_error = f.at("energy_error").string();
    // (An ok candidate may lack a time: a modeled run of a kernel without a model.)
    if (!e.ok() && e.timing) throw std::invalid_argument("a failed candidate with a time");
    return e;
  } catch (const InputError& err) { // from JsonFields: names its field, relative to `field`
    throw JournalError(file, line, join_field(field, err.field()), err.message());
  } catch (const json::exception& err) {
    throw JournalError(file, line, field, err.what());
  } catch (const std::invalid_argument& err) {
    throw JournalError(file, line, field, err.what());
  }
}

JournalContents read_journal(const std::filesystem::path& path) {
  std::string text;
  try {
    text = io::read_text_file(path);
  } catch (const InputError& e) {
    throw JournalError(path.string(), 0, "", e.message());
  }
  return parse_journal(text, path.string());
}

JournalContents parse_journal(const std::string& text, const std::string& file) {
  JournalContents c;
  std::size_t pos = 0, number = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) { // no newline: cut off while it was written
      c.dropped_cut_line = true;
      break;
    }
    ++number;
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    c.complete_bytes = pos;
    if (line.empty()) throw JournalError(file, number, "", "an empty line (a journal has one JSON object per line)");
    json value;
    try {
      value = io::parse_json(std::move(line), file).root();
    } catch (const InputError& e) { // parsed as a text of its own: its line is the journal's
      std::string message = e.message();
      if (const auto at = message.find("(line 1, "); at != std::string::npos) message.replace(at, 9, "(");
      throw JournalError(file, number, e.field(), message + " (the file is damaged)");
    }
    if (!value.is_object()) throw JournalError(file, number, "", "not a JSON object (the file is damaged)");
    if (number == 1) {
      if (value.value("journal", json()) != "memtune") throw JournalError(file, 1, "journal", "not a memtune journal");
      if (value.value("journal_version", json()) != kJournalVersion)
        throw JournalError(file, 1, "journal_version",
                           "version " + shown(value.value("journal_version", json())) + ", this build reads " +
                               std::to_string(kJournalVersion));
      c.header = std::move(value);
    } else if (value.contains("setup")) {
      c.setup = value.at("setup");
    } else if (value.contains("candidate")) {
      c.candidates.push_back({number, std::move(value)});
    } else {
      throw JournalError(file, number, "", "neither a candidate nor a setup line");
    }
  }
  if (c.header.is_null() && number > 0) throw JournalError(file, 1, "", "no header");
  return c;
}

JournalResume resume_from(const JournalContents& c, const json& header, const search::Space& space,
                          const std::string& name) {
  if (!c.header.is_object()) throw JournalError(name, 1, "", "no header (an empty journal)");
  for (const auto& [field, what] : resume_fields()) {
    const json recorded = c.header.value(field, json()), now = header.value(field, json());
    if (recorded != now)
      throw JournalError(name, 1, field,
                         std::string("this journal is of another ") + what + " (" + shown(recorded) + "; this run: " +
                             shown(now) + "): it cannot be resumed; give another --journal file, or remove this one");
  }
  JournalResume r;
  for (const auto& line : c.candidates) {
    Evaluation e = evaluation_from_journal_line(space, line.value, name, line.number);
    const search::Config config = e.config;
    if (!r.journaled.emplace(config, std::move(e)).second)
      throw JournalError(name, line.number, "config", "configuration " + space.format(config) + " appears twice");
  }
  if (c.setup) {
    std::string field = "setup.ceiling";
    try {
      (void)isolation::ceiling_from_json(c.setup->at("ceiling"));
      field = "setup.reference_time_s";
      if (const json& t = c.setup->at("reference_time_s"); !t.is_null() && !t.is_number())
        throw std::invalid_argument("expected a number or null");
    } catch (const InputError& err) {
      throw JournalError(name, 0, join_field(field, err.field()), err.message());
    } catch (const std::exception& err) {
      throw JournalError(name, 0, field, err.what());
    }
  }
  r.setup = c.setup;
  return r;
}

Journal::Journal(const std::filesystem::path& file, const json& header, const search::Space& space, bool must_exist)
    : file_(file), space_(space) {
  try {
    open(header, must_exist);
  } catch (...) {
    if (fd_ >= 0) ::close(fd_); // and with it the lock: the destructor does not run
    throw;
  }
}

void Journal::open(const json& header, bool must_exist) {
  const std::filesystem::path& file = file_;
  const std::string name = file.string();
  std::error_code ec;
  const bool exists = std::filesystem::exists(file, ec);
  if (!exists && must_exist) throw JournalError(name, 0, "", "no such journal to resume");
  try {
    (void)io::output_file(file); // a folder, a FIFO or a device is no journal (a FIFO would block the read)
  } catch (const InputError& e) {
    throw JournalError(name, 0, "", e.message());
  }
  if (!exists && file.has_parent_path()) { // its folders made, as for every other output file
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) throw JournalError(name, 0, "", "cannot create the folder " + file.parent_path().string() + ": " + ec.message());
  }
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw JournalError(name, 0, "", std::string("cannot open it: ") + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw JournalError(name, 0, "", "another memtune run is writing this journal");
  }
  const JournalContents c = read_journal(file);
  const search::Space& space = space_;
  if (c.header.is_null()) { // new, or killed before its header was complete
    // Anything else (notes without a newline) is not ours to truncate.
    if (const std::string text = io::read_text_file(file); !io::holds_kind(text, io::OutputKind::journal))
      throw JournalError(name, 0, "",
                         "exists and is not a memtune journal, so it is not replaced (it holds " + io::what_it_holds(text) +
                             "): move it or choose another file");
    if (::ftruncate(fd_, 0) != 0) throw JournalError(name, 0, "", std::string("cannot truncate it: ") + std::strerror(errno));
    ::lseek(fd_, 0, SEEK_SET);
    write_line(header);
    // The new file's name must survive a power cut too.
    const int folder = ::open(std::filesystem::absolute(file, ec).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0) {
      ::fsync(folder);
      ::close(folder);
    }
    return;
  }
  JournalResume resume = resume_from(c, header, space, name);
  journaled_ = std::move(resume.journaled);
  setup_ = std::move(resume.setup);
  resumed_ = journaled_.size();
  next_index_ = resumed_;
  dropped_cut_line_ = c.dropped_cut_line;
  // Append after the last complete line: a line cut off by a kill is dropped.
  if (::ftruncate(fd_, static_cast<off_t>(c.complete_bytes)) != 0)
    throw JournalError(name, 0, "", std::string("cannot truncate its cut-off last line: ") + std::strerror(errno));
  ::lseek(fd_, 0, SEEK_END);
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_); // releases the lock
}

std::optional<Evaluation> Journal::take(const search::Config& config) {
  const auto it = journaled_.find(config);
  if (it == journaled_.end()) return std::nullopt;
  Evaluation e = std::move(it->second);
  journaled_.erase(it);
  return e;
}

void Journal::write_line(const json& line) {
  const std::string text = line.dump() + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw JournalError(file_.string(), 0, "", std::string("cannot append to it: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_) != 0)
    throw JournalError(file_.string(), 0, "", std::string("cannot make it durable (fdatasync): ") + std::strerror(errno));
}

void Journal::append_setup(const json& setup) { write_line({{"setup", setup}}); }

void Journal::append(const Evaluation& e) {
  json line = journal_line(space_, e, next_index_++);
  // When it ended, for time-to-solution (several GPUs against one); not read back.
  line["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
  write_line(line);
}

std::string Journal::describe() const {
  std::string s = resumed_ ? "resumed " + std::to_string(resumed_) + " candidates from the journal " + file_.string()
                           : "journal " + file_.string();
  if (dropped_cut_line_) s += " (its last line was cut off by an interruption: that candidate runs again)";
  if (!journaled_.empty() && journaled_.size() < resumed_)
    s += "; " + std::to_string(journaled_.size()) + " journaled candidates were not proposed again (a smaller budget?)";
  return s;
}

} // namespace memtune
