#pragma once
// Internal to KernelDescription::validate: the Validator class, whose checks
// are split by section over description_validate.cpp (names, expressions,
// source, problem, parameters, launch) and description_validate_arguments.cpp
// (arguments, fills, constants, bytes moved, verification, default, model).
#include <memtune/description/description_json.hpp>

#include <memtune/description/description_internal.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memtune::description_detail {

// A C identifier: a name, macro, symbol or C function of a description.
inline bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Which names an expression may read.
enum class Scope {
  everything,     // parameters, problem variables, device attributes, derived values
  no_parameters,  // decided before a configuration exists (only_if, the reference kernel)
  problem_only,   // bytes moved: per problem, the same on every GPU
};

class Validator {
public:
  explicit Validator(const KernelDescription& d)
      : d_(d), kinds_(name_kinds(d)), reads_() {}

  void run();

private:
  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw DescriptionError(origin_of(d_), field, reason);
  }

  void check_identity() const;
  void check_names() const;
  void check_expr(const search::Expr& e, const std::string& field, Scope scope,
                  std::size_t derived_limit = SIZE_MAX) const;
  std::vector<std::string> names_read(const search::Expr& e, const std::string& field) const;
  void check_name(const std::string& n, const std::string& field, Scope scope, std::size_t derived_limit) const;
  std::string known_names() const;
  void check_pattern(const std::string& pattern, const std::string& field, Scope scope) const;
  void check_source() const;
  void check_problem() const;
  void check_parameters() const;
  void check_values_if(const Parameter& p, const std::string& field) const;
  void check_launch() const;
  void check_fill(const Fill& f, ElementType type, const std::string& field) const;
  void check_representable(double v, ElementType vector, const std::string& field) const;
  void check_parameter_list(const std::vector<std::string>& names, const std::string& field) const;
  void check_arguments() const;
  void check_constants() const;
  void check_bytes_moved() const;
  void check_axis_value(const std::string& parameter, const nlohmann::json& value, const std::string& field) const;
  void check_verify() const;
  void check_baselines() const;
  void check_model() const;
  void check_default() const;
  void check_same_as(const ConstraintSpec& c, const std::string& field) const;

  const KernelDescription& d_;
  std::map<std::string, NameKind> kinds_;
  DerivedReads reads_;
};

} // namespace memtune::description_detail
