#pragma once
// Internal to the description files: reading one JSON value of a description
// file, each error a DescriptionError naming the file, the field (a JSON path
// such as `arguments[2].count`) and the reason. The file's reader
// (description_json.cpp) and its model section's (model_spec_json.cpp) share it.
#include <memtune/description/description_json.hpp>
#include <memtune/description/model_spec.hpp>
#include <memtune/search/expr.hpp>

#include <memtune/description/description_internal.hpp>

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune::description_detail {

class FieldReader {
public:
  explicit FieldReader(std::string origin) : origin_(std::move(origin)) {}

  using ordered_json = nlohmann::ordered_json;

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw DescriptionError(origin_, field, reason);
  }

  static std::string describe(const ordered_json& j) {
    const std::string text = j.dump();
    return std::string(j.type_name()) + " (" + (text.size() > 40 ? text.substr(0, 37) + "..." : text) + ")";
  }

  static std::string join_path(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // An object holding only `known` fields.
  const ordered_json& fields(const ordered_json& j, const std::string& path, std::initializer_list<const char*> known) const {
    object(j, path.empty() ? "(document)" : path);
    for (const auto& [key, _] : j.items()) {
      bool ok = false;
      std::vector<std::string> names;
      for (const char* k : known) {
        ok = ok || key == k;
        names.emplace_back(k);
      }
      if (!ok) fail(join_path(path, key), "unknown field (known here: " + join(names) + ")");
    }
    return j;
  }

  const ordered_json& required(const ordered_json& j, const char* key, const std::string& path) const {
    if (!j.contains(key)) fail(join_path(path, key), "missing");
    return j.at(key);
  }

  const ordered_json& object(const ordered_json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an object, got " + describe(j));
    return j;
  }

  const ordered_json& array(const ordered_json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "expected an array, got " + describe(j));
    return j;
  }

  std::string string(const ordered_json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string, got " + describe(j));
    return j.get<std::string>();
  }

  bool boolean(const ordered_json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, "expected true or false, got " + describe(j));
    return j.get<bool>();
  }

  double number(const ordered_json& j, const std::string& path) const {
    if (!j.is_number()) fail(path, "expected a number, got " + describe(j));
    return j.get<double>();
  }

  std::vector<std::string> strings(const ordered_json& j, const std::string& path) const {
    std::vector<std::string> out;
    const auto& a = array(j, path);
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(string(a[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }

  // An expression: text (parsed) or an integer.
  search::Expr expr(const ordered_json& j, const std::string& path) const {
    if (j.is_number_integer()) {
      if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        fail(path, j.dump() + " does not fit in 64 bits");
      return search::Expr(j.get<std::int64_t>());
    }
    if (!j.is_string()) fail(path, "expected an expression (text or an integer), got " + describe(j));
    const std::string text = j.get<std::string>();
    try {
      return search::parse_expr(text);
    } catch (const search::ExprSyntaxError& e) {
      fail(path, explain_syntax_error(e, text));
    }
  }

  // An integer, or size text such as "16M" (any expression of constants).
  std::int64_t integer(const ordered_json& j, const std::string& path) const {
    if (j.is_number_float()) fail(path, "expected an integer, got " + describe(j));
    const search::Expr e = expr(j, path);
    std::vector<std::string> names;
    e.collect_axes(names);
    if (!names.empty())
      fail(path, "expected an integer, a size such as \"16M\" or an expression of constants (\"4K * 4K\"), got " +
                     describe(j) + ", which reads '" + names.front() + "'");
    try {
      return e.eval(search::Config{});
    } catch (const std::exception& err) { // overflow, x / 0, a label
      fail(path, err.what());
    }
  }

protected:
  std::string origin_;

  static std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
  }
};

// The "model" section (model_spec.hpp), read with `r`'s file and field names (model_spec_json.cpp).
[[nodiscard]] ModelSpec read_model_section(const FieldReader& r, const nlohmann::ordered_json& section);

// verify_json.cpp: a tolerance {abs, rel}, a reduced comparison of the
// verify section, and the "baselines" section.
[[nodiscard]] Tolerance read_tolerance(const FieldReader& r, const nlohmann::ordered_json& j, const std::string& path);
[[nodiscard]] ReducedOutput read_reduced(const FieldReader& r, const nlohmann::ordered_json& j, const std::string& path);
[[nodiscard]] std::map<std::string, LibraryBaseline> read_baselines(const FieldReader& r,
                                                                    const nlohmann::ordered_json& section);

} // namespace memtune::description_detail
