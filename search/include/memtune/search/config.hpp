#pragma once
// A Config is one point of a search space: a value for every axis, by name.
//
// Values are integers. An ordinal axis stores the value itself (block size
// 256); a categorical axis stores the index of its label (layout "soa" = 1),
// and the Space turns it back into the label for people and JSON.
#include <cstdint>
#include <map>
#include <string>

namespace memtune::search {

class Config {
public:
  Config() = default;
  Config(std::initializer_list<std::pair<const std::string, std::int64_t>> values) : values_(values) {}

  // Throws std::out_of_range naming the axis when it is missing.
  [[nodiscard]] std::int64_t at(const std::string& axis) const;
  [[nodiscard]] bool has(const std::string& axis) const { return values_.count(axis) != 0; }
  void set(const std::string& axis, std::int64_t value) { values_[axis] = value; }

  [[nodiscard]] const std::map<std::string, std::int64_t>& values() const { return values_; }
  [[nodiscard]] bool empty() const { return values_.empty(); }

  friend bool operator==(const Config&, const Config&) = default;
  friend auto operator<=>(const Config&, const Config&) = default;

private:
  std::map<std::string, std::int64_t> values_;
};

} // namespace memtune::search
