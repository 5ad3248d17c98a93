#pragma once
// Reading JSON files so that every problem names the file, the line and the
// field: syntax errors and number overflows ("1e400") come with their line and
// column, nesting deeper than a limit is refused before anything recurses over
// it, and a field error thrown while reading the value gets the line of that
// field.
//
//   const io::JsonDocument doc = io::read_json_file("profiles.json");
//   const Store s = doc.read([](const io::JsonFields& root) { return Store::from(root); });
//   // a JsonFields error at "entries[2].time_s" becomes
//   // InputError "profiles.json:14: field 'entries[2].time_s': ..."
#include <memtune/io/errors.hpp>
#include <memtune/io/json_fields.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

namespace memtune::io {

struct JsonLimits {
  // Deeper documents are refused: memtune's deepest (constraint expressions of
  // the fdtd space) nest ~40 levels, and readers that recurse must never
  // exhaust the stack (a 30000-deep expression did).
  std::size_t max_depth = 256;
  std::uintmax_t max_bytes = std::uintmax_t{1} << 30; // [bytes]
};

class JsonDocument {
public:
  JsonDocument(std::string origin, std::string text, nlohmann::json root)
      : origin_(std::move(origin)), text_(std::move(text)), root_(std::move(root)) {}

  [[nodiscard]] const std::string& origin() const { return origin_; } // the file name
  [[nodiscard]] const nlohmann::json& root() const { return root_; }
  // The line of a field ("entries[2].device"), or of its nearest enclosing
  // field that has one; 0 when unknown. Parses the text again: for errors only.
  [[nodiscard]] std::size_t line_of(const std::string& field) const;

  // Calls read(JsonFields of the root) and locates any InputError it throws
  // (file and line of its field). Other exceptions pass through.
  template <class Reader>
  auto read(Reader&& reader) const -> decltype(reader(std::declval<const JsonFields&>())) {
    try {
      return reader(JsonFields(root_));
    } catch (const InputError& e) {
      throw locate(e);
    }
  }
  // `e` with this document's file and the line of its field.
  [[nodiscard]] InputError locate(const InputError& e) const;

private:
  std::string origin_;
  std::string text_;
  nlohmann::json root_;
};

// Parses `text`; `origin` names it in errors. Throws InputError with the line
// (and the column in the message) for a syntax error, a number out of range
// or nesting deeper than limits.max_depth.
[[nodiscard]] JsonDocument parse_json(std::string text, std::string origin, const JsonLimits& limits = {});
// The 1-based line and column of a nlohmann parse_error's position (its
// byte count, one past the offending character) in `text`.
[[nodiscard]] std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t position);
// Reads and parses a file. Throws InputError also when it cannot be read
// (missing, a directory, larger than limits.max_bytes).
[[nodiscard]] JsonDocument read_json_file(const std::filesystem::path& file, const JsonLimits& limits = {});

// nlohmann's message without its "[json.exception.type_error.302] " prefix,
// for errors that reach people.
[[nodiscard]] std::string without_json_prefix(std::string message);

// The whole file as text. Throws InputError naming the file.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& file,
                                         std::uintmax_t max_bytes = JsonLimits{}.max_bytes);

} // namespace memtune::io
