#pragma once
// What memtune says about bad input: one small hierarchy that every reader
// throws and the CLI turns into an exit code (InputError: 1, ArgumentError: 2).
//
//   throw InputError("profiles.json", 14, "entries[2].device.sm_count", "expected an integer, got \"x\"");
//   // what(): profiles.json:14: field 'entries[2].device.sm_count': expected an integer, got "x"
//
// Readers of a JSON value throw InputError without a file (JsonFields does);
// the file's reader adds the file and the line (JsonDocument::read).
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memtune {

// A file, or a value in one, that memtune cannot use: unreadable, not JSON,
// a field missing, of the wrong type or out of range; also a file that cannot
// be written. Exit code 1.
class InputError : public std::runtime_error {
public:
  // `line` 0: not known; `field` empty: the whole file; `file` empty: not known yet.
  InputError(std::string file, std::size_t line, std::string field, std::string message);

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::size_t line() const { return line_; }
  [[nodiscard]] const std::string& field() const { return field_; }
  [[nodiscard]] const std::string& message() const { return message_; } // without file, line and field

  // The same error located in `file` at `line` (kept when already known).
  [[nodiscard]] InputError located(const std::string& file, std::size_t line) const;
  // The same error with `prefix` in front of the field ("entries[3]" + "device").
  [[nodiscard]] InputError within(const std::string& prefix) const;

private:
  std::string file_;
  std::size_t line_;
  std::string field_;
  std::string message_;
};

// A command-line argument or API argument that makes no sense: an empty size,
// a negative count, an axis fixed twice, an unknown subcommand. Exit code 2.
// what(): "--top -1: must be >= 0".
class ArgumentError : public std::invalid_argument {
public:
  ArgumentError(std::string argument, const std::string& message);
  [[nodiscard]] const std::string& argument() const { return argument_; }

private:
  std::string argument_;
};

// Runs a program's body so that no exception ends it with `terminate called`:
// prints "<program>: <what>" on `err` and returns 2 for a bad argument
// (std::invalid_argument, so ArgumentError), 1 for anything else (InputError).
// Used by every memtune executable's main.
int run_reporting_errors(const std::string& program, std::ostream& err, const std::function<int()>& body);

// "a.b" + "c" = "a.b.c"; "a" + "[3]" = "a[3]"; "" + "c" = "c".
[[nodiscard]] std::string join_field(const std::string& prefix, const std::string& field);

// Edits (insert, delete, replace a character) from `a` to `b`: how near a
// misspelt name is to a known one, for "did you mean 'filter'?".
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

} // namespace memtune
