#pragma once
// Internal to the description files: the names a description's expressions
// read, label resolution, the evaluation environment and `{expr}` patterns.
#include <memtune/description/kernel_description.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memtune::description_detail {

// "<origin>" for errors: the JSON file, or "description 'name'" for one built in C++.
std::string origin_of(const KernelDescription& d);

enum class NameKind { parameter, problem, device, derived };
const char* to_string(NameKind kind); // "tunable parameter", "problem variable", ...

// Every name an expression of `d` may read, with its kind. Assumes no clashes
// (validate() checks them first).
std::map<std::string, NameKind> name_kinds(const KernelDescription& d);

// The labels of an enumeration: a categorical parameter or a problem variable with labels.
std::optional<std::vector<std::string>> labels_of(const KernelDescription& d, const std::string& name);
// `e` with its labels resolved (throws std::invalid_argument when one is not a label).
search::Expr resolved(const KernelDescription& d, const search::Expr& e);

// Whether derived value i reads a parameter or a device attribute, directly or
// through earlier derived values.
struct DerivedReads {
  std::vector<bool> parameter, device;
};
DerivedReads derived_reads(const KernelDescription& d);
// Whether `e` reads a tunable parameter, directly or through derived values.
bool reads_parameter(const KernelDescription& d, const search::Expr& e);

// A derived value that cannot be evaluated (x / 0, an overflow): what() is
// "derived.<name> = <expr>: <why>", field() "derived.<name>", reason() <why>.
class DerivedValueError : public std::invalid_argument {
public:
  DerivedValueError(std::string field, const std::string& expr, std::string reason)
      : std::invalid_argument(field + " = " + expr + ": " + reason), field_(std::move(field)), reason_(std::move(reason)) {}
  [[nodiscard]] const std::string& field() const { return field_; }
  [[nodiscard]] const std::string& reason() const { return reason_; }

private:
  std::string field_, reason_;
};

// Names and values an expression sees: problem variables, device attributes
// (when target is given), the configuration's parameters (when given), then
// each derived value whose names are all present. Throws DerivedValueError
// naming a derived value that cannot be evaluated.
search::Config environment(const KernelDescription& d, const search::Config* config, const Problem& problem,
                           const Target* target);
// The environment without a configuration: a derived value that cannot be
// evaluated there reads no parameter, so it fails every candidate alike, and
// is a DescriptionError naming the file and "derived.<name>".
search::Config problem_environment(const KernelDescription& d, const Problem& problem, const Target* target);

// Evaluates `e` (labels resolved) in `env`; errors become std::invalid_argument "<field> = <text>: <why>".
std::int64_t evaluate(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                      const std::string& field);

// A pattern: text with `{expression}` placeholders; `{{` and `}}` are braces.
struct PatternPiece {
  bool is_expr = false;
  std::string text;            // literal text, or the placeholder's expression text
  std::size_t position = 0;    // of the placeholder's expression in the pattern
  std::optional<search::Expr> expr;
};
// Throws search::ExprSyntaxError with the position in the pattern.
std::vector<PatternPiece> parse_pattern(std::string_view pattern);
// An enumeration named alone renders its label, anything else its integer value.
std::string render_pattern(const KernelDescription& d, std::string_view pattern, const search::Config& env,
                           const std::string& field);

// "syntax error at column 9: ...\n    TILE * ) <= 4\n            ^"; a long text
// is shown as the 100 characters around the error, "..." marking what is cut.
std::string explain_syntax_error(const search::ExprSyntaxError& e, std::string_view text);
// `text` cut to `max_chars` with "..." (an expression echoed in a message:
// a megabyte of it helps nobody).
std::string clipped(std::string_view text, std::size_t max_chars = 120);

// A description file's JSON, parsed strictly (description_parse.cpp): a
// duplicate key, a nest too deep, a syntax error or a number too large is a
// DescriptionError naming `origin` and the JSON path or line.
nlohmann::ordered_json parse_description_text(const std::string& text, const std::string& origin);

} // namespace memtune::description_detail
