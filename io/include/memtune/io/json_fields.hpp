#pragma once
// Typed access to a JSON value that names the field of every problem: a view
// of one value at its path in the document, whose getters throw InputError
// ("field 'entries[2].device.sm_count': expected an integer in [1, 65536], got 4294967428").
// JsonDocument::read adds the file and the line.
//
//   const JsonFields entry = root.at("entries").at(2);
//   const int sms = entry.at("device").at("sm_count").integer<int>(1, 65536);
//   const double t = entry.at("time_s").number(0.0);          // finite, >= 0
//   if (auto note = entry.find("rationale")) text = note->string();
#include <memtune/io/errors.hpp>

#include <nlohmann/json.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memtune::io {

class JsonFields {
public:
  // `value` must outlive the view; `path` names it in errors ("" = the document).
  explicit JsonFields(const nlohmann::json& value, std::string path = {}) : value_(&value), path_(std::move(path)) {}

  [[nodiscard]] const nlohmann::json& value() const { return *value_; }
  [[nodiscard]] const std::string& path() const { return path_; }

  // Object members and array elements. at() requires an object (or array) and
  // the member; find() is nullopt when the member is absent.
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] JsonFields at(std::string_view key) const;
  [[nodiscard]] std::optional<JsonFields> find(std::string_view key) const;
  [[nodiscard]] JsonFields at(std::size_t index) const;
  [[nodiscard]] std::vector<JsonFields> elements() const; // requires an array
  [[nodiscard]] std::vector<std::pair<std::string, JsonFields>> members() const; // requires an object
  // Refuses any member not in `known` (a misspelt field, not a silent default).
  void only_keys(std::initializer_list<std::string_view> known) const;

  // Scalars, each checked against its range.
  template <std::integral T>
  [[nodiscard]] T integer(T min = std::numeric_limits<T>::lowest(), T max = std::numeric_limits<T>::max()) const {
    const nlohmann::json& v = *value_;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (std::cmp_less_equal(min, u) && std::cmp_less_equal(u, max)) return static_cast<T>(u);
    } else if (v.is_number_integer()) {
      const auto s = v.get<std::int64_t>();
      if (std::cmp_less_equal(min, s) && std::cmp_less_equal(s, max)) return static_cast<T>(s);
    }
    fail_integer(std::to_string(min), std::to_string(max));
  }
  // A finite number in [min, max].
  [[nodiscard]] double number(double min = -std::numeric_limits<double>::max(),
                              double max = std::numeric_limits<double>::max()) const;
  [[nodiscard]] std::string string() const;
  [[nodiscard]] std::string nonempty_string() const;
  [[nodiscard]] bool boolean() const;
  void require_object() const;
  void require_array() const;

  // Throws InputError naming this field.
  [[noreturn]] void fail(const std::string& message) const;

private:
  [[noreturn]] void fail_integer(const std::string& min, const std::string& max) const;
  const nlohmann::json* value_;
  std::string path_;
};

// A JSON value as people read it in a message, cut to `max_chars`.
[[nodiscard]] std::string shown(const nlohmann::json& value, std::size_t max_chars = 60);

} // namespace memtune::io
