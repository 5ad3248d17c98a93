#include <memtune/io/json_document.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

namespace memtune::io {
namespace {

using json = nlohmann::json;

// Where the lexer is: nlohmann reports a byte offset for syntax errors only,
// so the text is read through an iterator that counts lines as it goes.
struct Cursor {
  std::size_t line = 1;       // of the next character
  std::size_t token_line = 1; // of the last non-blank character read: the end of the current token
};

class CountingIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* p, Cursor* cursor) : p_(p), cursor_(cursor) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    // The lexer reads *it, then advances: the character passed is the one read.
    const char c = *p_;
    if (c == '\n') ++cursor_->line;
    else if (c != ' ' && c != '\t' && c != '\r') cursor_->token_line = cursor_->line;
    ++p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

private:
  const char* p_;
  Cursor* cursor_;
};

} // namespace

std::string without_json_prefix(std::string message) {
  // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." -> "syntax error ..."
  if (message.rfind("[json.exception.", 0) == 0) {
    const auto end = message.find("] ");
    if (end != std::string::npos) message.erase(0, end + 2);
  }
  if (message.rfind("parse error at line ", 0) == 0) {
    const auto colon = message.find(": ");
    if (colon != std::string::npos) message.erase(0, colon + 2);
  }
  return message;
}

namespace {

// Builds the document (or, when locating, only follows the path of every
// value) and refuses nesting deeper than the limit.
class Handler {
public:
  Handler(json* root, std::size_t max_depth, const Cursor* cursor)
      : dom_(root ? std::make_unique<nlohmann::detail::json_sax_dom_parser<json>>(*root, true) : nullptr),
        max_depth_(max_depth), cursor_(cursor) {}

  // Locating: stop at the first value whose field is `target`.
  void locate(std::string target) { target_ = std::move(target); }
  [[nodiscard]] std::size_t found_line() const { return found_line_; }
  [[nodiscard]] std::size_t nearest_line() const { return nearest_line_; }

  bool null() { return value() && (!dom_ || dom_->null()); }
  bool boolean(bool v) { return value() && (!dom_ || dom_->boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value() && (!dom_ || dom_->number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value() && (!dom_ || dom_->number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value() && (!dom_ || dom_->number_float(v, s));
  }
  bool string(json::string_t& v) { return value() && (!dom_ || dom_->string(v)); }
  bool binary(json::binary_t& v) { return value() && (!dom_ || dom_->binary(v)); }
  bool start_object(std::size_t n) { return open(false) && (!dom_ || dom_->start_object(n)); }
  bool key(json::string_t& k) {
    if (!frames_.empty()) {
      // nlohmann keeps the last of duplicate keys silently: a key given twice
      // is a mistake to name (which one did the writer mean?), never a guess.
      if (!frames_.back().keys.insert(k).second) {
        duplicate_field_ = open_path() + (frames_.size() > 1 ? "." : "") + k;
        error_ = "the key \"" + k + "\" appears twice";
        return false;
      }
      frames_.back().key = k;
    }
    return !dom_ || dom_->key(k);
  }
  bool end_object() {
    close();
    return !dom_ || dom_->end_object();
  }
  bool start_array(std::size_t n) { return open(true) && (!dom_ || dom_->start_array(n)); }
  bool end_array() {
    close();
    return !dom_ || dom_->end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& /*token*/, const Exception& ex) {
    error_position_ = position;
    error_ = without_json_prefix(ex.what());
    return false;
  }

  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] std::size_t error_position() const { return error_position_; }
  [[nodiscard]] bool depth_exceeded() const { return depth_exceeded_; }
  // The field of a key given twice in one object; empty when none was.
  [[nodiscard]] const std::string& duplicate_field() const { return duplicate_field_; }

private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;
    std::string key;
    std::string path;
    std::set<std::string, std::less<>> keys; // an object's keys so far
  };

  // The field of the innermost open object ("entries[2].device"); for errors.
  std::string open_path() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      // An array's index was counted when the element opened: the element is index - 1.
      out = f.array ? out + "[" + std::to_string(f.index - 1) + "]" : join_field(out, f.key);
    }
    return out;
  }

  // The field of the value starting now, when locating.
  std::string field() const {
    if (frames_.empty()) return {};
    const Frame& f = frames_.back();
    return f.array ? f.path + "[" + std::to_string(f.index) + "]" : join_field(f.path, f.key);
  }
  bool at_value(const std::string& path) {
    if (!target_) return true;
    const std::string& t = *target_;
    // Remember the deepest enclosing field seen, for fields that do not exist.
    if (t.compare(0, path.size(), path) == 0 &&
        (path.size() == t.size() || path.empty() || t[path.size()] == '.' || t[path.size()] == '['))
      nearest_line_ = cursor_->token_line;
    if (path == t) {
      found_line_ = cursor_->token_line;
      return false;
    }
    return true;
  }
  bool value() {
    const bool go_on = !target_ || at_value(field());
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return go_on;
  }
  bool open(bool array) {
    if (frames_.size() >= max_depth_) {
      error_ = "nested deeper than " + std::to_string(max_depth_) + " levels";
      error_position_ = 0;
      depth_exceeded_ = true;
      return false;
    }
    std::string path = target_ ? field() : std::string{};
    const bool go_on = !target_ || at_value(path);
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    frames_.push_back({array, 0, {}, std::move(path)});
    return go_on;
  }
  void close() {
    if (!frames_.empty()) frames_.pop_back();
  }

  bool depth_exceeded_ = false;
  std::string duplicate_field_;
  std::unique_ptr<nlohmann::detail::json_sax_dom_parser<json>> dom_;
  std::size_t max_depth_;
  const Cursor* cursor_;
  std::vector<Frame> frames_;
  std::optional<std::string> target_;
  std::size_t found_line_ = 0;
  std::size_t nearest_line_ = 0;
  std::string error_;
  std::size_t error_position_ = 0;
};

} // namespace

std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t position) {
  // nlohmann's position counts the characters read, one past the offending one.
  const std::size_t upto = std::min(position == 0 ? 0 : position - 1, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < upto; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

JsonDocument parse_json(std::string text, std::string origin, const JsonLimits& limits) {
  json root;
  Cursor cursor;
  Handler handler(&root, limits.max_depth, &cursor);
  const CountingIterator first(text.data(), &cursor), last(text.data() + text.size(), &cursor);
  bool ok = false;
  try {
    ok = json::sax_parse(first, last, &handler);
  } catch (const json::exception& e) {
    // The DOM builder throws for what the handler did not catch (none known); keep the message.
    throw InputError(origin, cursor.token_line, "", "not valid JSON: " + without_json_prefix(e.what()));
  }
  if (!ok) {
    if (handler.depth_exceeded())
      throw InputError(origin, cursor.token_line, "", "refused: " + handler.error());
    if (!handler.duplicate_field().empty())
      throw InputError(origin, cursor.token_line, handler.duplicate_field(), handler.error());
    const auto [line, column] = line_and_column(text, handler.error_position());
    throw InputError(origin, line, "",
                     "not valid JSON (line " + std::to_string(line) + ", column " + std::to_string(column) +
                         "): " + handler.error());
  }
  return JsonDocument(std::move(origin), std::move(text), std::move(root));
}

std::size_t JsonDocument::line_of(const std::string& field) const {
  Cursor cursor;
  Handler handler(nullptr, JsonLimits{}.max_depth * 16, &cursor);
  handler.locate(field);
  const CountingIterator first(text_.data(), &cursor), last(text_.data() + text_.size(), &cursor);
  try {
    (void)json::sax_parse(first, last, &handler);
  } catch (const json::exception&) {
    return 0;
  }
  return handler.found_line() ? handler.found_line() : handler.nearest_line();
}

InputError JsonDocument::locate(const InputError& e) const {
  if (!e.file().empty() && e.line()) return e;
  return e.located(origin_, e.line() ? e.line() : line_of(e.field()));
}

std::string read_text_file(const std::filesystem::path& file, std::uintmax_t max_bytes) {
  const std::string name = file.string();
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  // A symbolic link loop, a folder on the way that cannot be searched: the system's reason.
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    throw InputError(name, 0, "", "cannot open: " + ec.message());
  if (ec || !std::filesystem::exists(status)) throw InputError(name, 0, "", "cannot open: no such file");
  if (std::filesystem::is_directory(status)) throw InputError(name, 0, "", "cannot open: it is a directory");
  // A FIFO would block the open until someone writes it; /dev/zero never ends.
  if (!std::filesystem::is_regular_file(status))
    throw InputError(name, 0, "", "is not a regular file (a FIFO, device or socket): memtune reads regular files only");
  if (const auto size = std::filesystem::file_size(file, ec); !ec && size > max_bytes)
    throw InputError(name, 0, "", "larger than " + std::to_string(max_bytes) + " bytes (" + std::to_string(size) +
                                      "): not a file memtune reads");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(name, 0, "", std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  // The size known up front: one allocation, not a doubling string's twice the file.
  if (const auto size = std::filesystem::file_size(file, ec); !ec && size <= max_bytes) text.reserve(size);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw InputError(name, 0, "", "larger than " + std::to_string(max_bytes) + " bytes: not a memtune file");
  }
  if (in.bad()) throw InputError(name, 0, "", "read error");
  return text;
}

JsonDocument read_json_file(const std::filesystem::path& file, const JsonLimits& limits) {
  return parse_json(read_text_file(file, limits.max_bytes), file.string(), limits);
}

} // namespace memtune::io
