#include <memtune/io/json_fields.hpp>

#include <algorithm>
#include <cmath>

namespace memtune::io {

std::string shown(const nlohmann::json& value, std::size_t max_chars) {
  // Replacing invalid UTF-8 keeps dump() from throwing on a fuzzed string.
  std::string s = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

namespace {

const char* kind(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_null()) return "null";
  return "a number";
}

} // namespace

void JsonFields::fail(const std::string& message) const { throw InputError("", 0, path_, message); }

void JsonFields::require_object() const {
  if (!value_->is_object()) fail(std::string("expected an object, got ") + kind(*value_));
}

void JsonFields::require_array() const {
  if (!value_->is_array()) fail(std::string("expected an array, got ") + kind(*value_));
}

bool JsonFields::has(std::string_view key) const { return value_->is_object() && value_->contains(key); }

JsonFields JsonFields::at(std::string_view key) const {
  require_object();
  const auto it = value_->find(key);
  const std::string path = join_field(path_, std::string(key));
  if (it == value_->end()) throw InputError("", 0, path, "missing");
  return JsonFields(*it, path);
}

std::optional<JsonFields> JsonFields::find(std::string_view key) const {
  require_object();
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonFields(*it, join_field(path_, std::string(key)));
}

JsonFields JsonFields::at(std::size_t index) const {
  require_array();
  if (index >= value_->size())
    fail("has " + std::to_string(value_->size()) + " elements, no element " + std::to_string(index));
  return JsonFields((*value_)[index], path_ + "[" + std::to_string(index) + "]");
}

std::vector<JsonFields> JsonFields::elements() const {
  require_array();
  std::vector<JsonFields> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) out.emplace_back((*value_)[i], path_ + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::pair<std::string, JsonFields>> JsonFields::members() const {
  require_object();
  std::vector<std::pair<std::string, JsonFields>> out;
  for (const auto& [key, value] : value_->items()) out.emplace_back(key, JsonFields(value, join_field(path_, key)));
  return out;
}

void JsonFields::only_keys(std::initializer_list<std::string_view> known) const {
  require_object();
  for (const auto& [key, _] : value_->items())
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      throw InputError("", 0, join_field(path_, key), "unknown field (known: " + list + ")");
    }
}

void JsonFields::fail_integer(const std::string& min, const std::string& max) const {
  if (!value_->is_number_integer()) fail(std::string("expected an integer, got ") + shown(*value_));
  fail("expected an integer in [" + min + ", " + max + "], got " + shown(*value_));
}

double JsonFields::number(double min, double max) const {
  if (!value_->is_number()) fail(std::string("expected a number, got ") + kind(*value_) + " " + shown(*value_));
  const double v = value_->get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    auto text = [](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x);
      return std::string(buf);
    };
    fail("expected a number in [" + text(min) + ", " + text(max) + "], got " + shown(*value_));
  }
  return v;
}

std::string JsonFields::string() const {
  if (!value_->is_string()) fail(std::string("expected a string, got ") + kind(*value_) + " " + shown(*value_));
  return value_->get<std::string>();
}

std::string JsonFields::nonempty_string() const {
  std::string s = string();
  if (s.empty()) fail("must not be empty");
  return s;
}

bool JsonFields::boolean() const {
  if (!value_->is_boolean()) fail(std::string("expected true or false, got ") + shown(*value_));
  return value_->get<bool>();
}

} // namespace memtune::io
