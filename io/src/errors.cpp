#include <memtune/io/errors.hpp>

#include <ostream>

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

} // namespace memtune
