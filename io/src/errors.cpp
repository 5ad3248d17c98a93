#include <memtune/io/errors.hpp>

#include <algorithm>
#include <ostream>
#include <vector>

namespace memtune {
namespace {

std::string compose(const std::string& file, std::size_t line, const std::string& field, const std::string& message) {
  std::string s;
  if (!file.empty()) s = file + (line ? ":" + std::to_string(line) : std::string{}) + ": ";
  else if (line) s = "line " + std::to_string(line) + ": ";
  if (!field.empty()) s += "field '" + field + "': ";
  return s + message;
}

} // namespace

InputError::InputError(std::string file, std::size_t line, std::string field, std::string message)
    : std::runtime_error(compose(file, line, field, message)), file_(std::move(file)), line_(line),
      field_(std::move(field)), message_(std::move(message)) {}

InputError InputError::located(const std::string& file, std::size_t line) const {
  return {file_.empty() ? file : file_, line_ ? line_ : line, field_, message_};
}

InputError InputError::within(const std::string& prefix) const {
  return {file_, line_, join_field(prefix, field_), message_};
}

ArgumentError::ArgumentError(std::string argument, const std::string& message)
    : std::invalid_argument(argument.empty() ? message : argument + ": " + message), argument_(std::move(argument)) {}

int run_reporting_errors(const std::string& program, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    err << program << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << program << ": " << e.what() << "\n";
    return 1;
  } catch (...) {
    err << program << ": an unknown error\n";
    return 1;
  }
}

std::string join_field(const std::string& prefix, const std::string& field) {
  if (prefix.empty()) return field;
  if (field.empty()) return prefix;
  return field.front() == '[' ? prefix + field : prefix + "." + field;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

} // namespace memtune
