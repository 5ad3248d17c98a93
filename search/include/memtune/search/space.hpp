#pragma once
// A search space: typed, named axes and the constraints between them.
//
//   Space s;
//   s.add(Axis::ordinal("block_size", {32, 64, 128, 256}, "threads per block"));
//   s.add(Axis::categorical("layout", {"aos", "soa"}));
//   s.require((axis("block_size") >= 64).because("..."));
//   for (const Config& c : s.enumerate()) ...   // grid order, valid points only
#include <memtune/search/config.hpp>
#include <memtune/search/expr.hpp>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memtune::search {

enum class AxisKind { ordinal, categorical };

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::ordinal;
  std::vector<std::int64_t> values;  // ordinal: increasing values; categorical: 0..k-1
  std::vector<std::string> labels;   // categorical only: labels[value]
  std::string description;

  static Axis ordinal(std::string name, std::vector<std::int64_t> values, std::string description = {});
  static Axis categorical(std::string name, std::vector<std::string> labels, std::string description = {});

  [[nodiscard]] std::string format(std::int64_t value) const;
  // Accepts a number (ordinal) or a label (categorical); nullopt if not on the axis.
  [[nodiscard]] std::optional<std::int64_t> parse(const std::string& text) const;
  [[nodiscard]] bool contains(std::int64_t value) const;
  // Position of a value on the axis (for models that need coordinates).
  [[nodiscard]] std::size_t index_of(std::int64_t value) const;
};

// An axis the target removed, with the reason shown to the user
// ("bank_mode: sm_90 has fixed 4-byte banks").
struct PrunedAxis {
  std::string name;
  std::string reason;
};

class Space {
public:
  void add(Axis axis);                 // throws std::invalid_argument on duplicate/empty axis
  void require(Constraint constraint);
  void note_pruned(PrunedAxis pruned) { pruned_.push_back(std::move(pruned)); }

  [[nodiscard]] const std::vector<Axis>& axes() const { return axes_; }
  [[nodiscard]] const Axis& axis(const std::string& name) const; // throws std::out_of_range
  [[nodiscard]] const std::vector<Constraint>& constraints() const { return constraints_; }
  [[nodiscard]] const std::vector<PrunedAxis>& pruned() const { return pruned_; }

  // Size of the full cross product, before constraints.
  [[nodiscard]] std::size_t cross_product_size() const;
  // Every valid config, in grid order (the first axis varies slowest).
  [[nodiscard]] std::vector<Config> enumerate() const;
  // The config at a cross-product index (grid order), valid or not.
  [[nodiscard]] Config at_index(std::size_t index) const;

  // Has a value on every axis, on the axis, and satisfies every constraint.
  [[nodiscard]] bool is_valid(const Config& config) const;
  // Why a config is invalid; nullopt when it is valid.
  [[nodiscard]] std::optional<std::string> violation(const Config& config) const;

  // "block_size=256 packing=2 layout=soa"
  [[nodiscard]] std::string format(const Config& config) const;
  // {"block_size": 256, "layout": "soa"}; round-trips through config_from_json.
  [[nodiscard]] nlohmann::json config_to_json(const Config& config) const;
  [[nodiscard]] Config config_from_json(const nlohmann::json& j) const; // throws std::invalid_argument

  [[nodiscard]] nlohmann::json to_json() const;
  static Space from_json(const nlohmann::json& j); // throws std::invalid_argument

private:
  std::vector<Axis> axes_;
  std::vector<Constraint> constraints_;
  std::vector<PrunedAxis> pruned_;
};

} // namespace memtune::search
