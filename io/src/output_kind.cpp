// What an existing file holds, so that the output-file policy never replaces
// a file of another kind (atomic_file.hpp). Recognised by shape only, with a
// SAX pass that keeps nothing but the top-level member names: a 1 GB store is
// scanned, not loaded. The writers' own readers check the details.
#include <memtune/io/atomic_file.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <set>

namespace memtune::io {
namespace {

// The top-level members of a JSON object, and the string values of a few.
struct TopLevel {
  std::set<std::string, std::less<>> keys;
  std::string journal, command; // the values of "journal" and "command"
};

class TopLevelScan : public nlohmann::json_sax<nlohmann::json> {
public:
  explicit TopLevelScan(TopLevel& out) : out_(out) {}
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t& s) override {
    if (depth_ == 1 && key_ == "journal") out_.journal = s;
    if (depth_ == 1 && key_ == "command") out_.command = s;
    return value();
  }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    if (depth_ == 0) object_ = true;
    ++depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      key_ = k;
      out_.keys.insert(k);
    }
    return true;
  }
  bool end_object() override { return --depth_, value(); }
  bool start_array(std::size_t) override { return ++depth_, true; }
  bool end_array() override { return --depth_, value(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  [[nodiscard]] bool object() const { return object_; }

private:
  bool value() {
    if (depth_ == 1) key_.clear();
    return true;
  }
  TopLevel& out_;
  std::string key_;
  int depth_ = 0;
  bool object_ = false;
};

std::optional<TopLevel> json_object(std::string_view text) {
  TopLevel top;
  TopLevelScan scan(top);
  if (!nlohmann::json::sax_parse(text, &scan) || !scan.object()) return std::nullopt;
  return top;
}

bool blank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

// The beginning of every journal header: journal_header() is a JSON object
// dumped with its members sorted, "bytes_moved" first.
constexpr std::string_view kJournalHeaderStart = R"({"bytes_moved":)";

std::optional<OutputKind> classify(std::string_view text) {
  if (text.rfind("<!DOCTYPE html>", 0) == 0 && text.find("<title>memtune report") != std::string_view::npos)
    return OutputKind::html_report;
  const std::size_t newline = text.find('\n');
  if (newline != std::string_view::npos) {
    const auto first = json_object(text.substr(0, newline));
    if (first && first->journal == "memtune") return OutputKind::journal;
  }
  if (const auto top = json_object(text)) {
    const auto has = [&](std::string_view k) { return top->keys.count(k) > 0; };
    if (has("entries") && has("schema_version")) return OutputKind::profile_store;
    if (has("trials") && has("space")) return OutputKind::recording;
    if (has("cache") && has("tune_params_keys")) return OutputKind::kernel_tuner_cache;
    if (top->command == "probe") return OutputKind::probe_results;
    if (has("cc_major") && has("sm_count")) return OutputKind::target_profile;
    return std::nullopt;
  }
  // A CSV table (output::csv_text): a header line of comma-separated names
  // (no bracket: "[1,2]" is a JSON array).
  const std::string_view head = text.substr(0, newline);
  if (newline != std::string_view::npos && head.find(',') != std::string_view::npos &&
      head.find_first_of(std::string_view("\0{<[", 4)) == std::string_view::npos)
    return OutputKind::csv_table;
  return std::nullopt;
}

// A journal killed while its header was written: one line without a newline,
// a prefix of a header or a cut-off header.
bool cut_journal_header(std::string_view text) {
  if (text.find('\n') != std::string_view::npos) return false;
  return text.rfind(kJournalHeaderStart, 0) == 0 ||
         (!text.empty() && kJournalHeaderStart.substr(0, text.size()) == text);
}

} // namespace

const char* to_string(OutputKind kind) {
  switch (kind) {
  case OutputKind::profile_store: return "profile store";
  case OutputKind::recording: return "recording";
  case OutputKind::journal: return "journal";
  case OutputKind::html_report: return "HTML report";
  case OutputKind::kernel_tuner_cache: return "Kernel Tuner cache (export)";
  case OutputKind::probe_results: return "probe results file";
  case OutputKind::target_profile: return "target profile";
  case OutputKind::csv_table: return "CSV table";
  case OutputKind::compile_cache: return "compile-cache entry";
  }
  return "?";
}

bool holds_kind(std::string_view text, OutputKind kind) {
  if (kind == OutputKind::compile_cache || blank(text)) return true;
  if (kind == OutputKind::journal && cut_journal_header(text)) return true;
  return classify(text) == kind;
}

std::string what_it_holds(std::string_view text) {
  if (blank(text)) return "an empty file";
  if (const auto kind = classify(text)) {
    const std::string name = to_string(*kind);
    return (name.front() == 'H' ? "an " : "a ") + name;
  }
  if (cut_journal_header(text)) return "a journal cut off in its header";
  if (json_object(text) || nlohmann::json::accept(text)) return "a JSON document memtune did not write";
  if (text.find('\0') != std::string_view::npos) return "binary data";
  return "text memtune did not write";
}

} // namespace memtune::io
