#pragma once
// A search space: typed, named axes and the constraints between them.
//
//   Space s;
//   s.add(Axis::ordinal("block_size", {32, 64, 128, 256}, "threads per block"));
//   s.add(Axis::categorical("layout", {"aos", "soa"}));
//   s.require((axis("block_size") >= 64).because("..."));
//   GridCursor walk(s);                         // grid order, valid points only,
//   while (auto c = walk.next()) ...            // without storing them (grid_cursor.hpp)
//
// A space can hold far more configurations than memory (7 axes of 10 values
// are 10^7): strategies walk it (GridCursor), sample it (LazyPermutation) or
// count it (count_valid), and only small spaces are ever materialised.
#include <memtune/search/config.hpp>
#include <memtune/search/expr.hpp>
#include <memtune/search/shard.hpp>

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
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

// How many configs of a space are valid: counted, or estimated from a sample
// when the cross product is too large to walk (and then labelled so).
struct ValidCount {
  std::size_t value = 0;
  bool exact = true;
  std::size_t sampled = 0; // estimated: points tested
  std::size_t hits = 0;    // estimated: of those, valid
  // "288", or "about 3.1 million (estimated: 2028 of 65536 sampled configurations are valid)"
  [[nodiscard]] std::string describe() const;
};

// Thrown by Space::admits once the space's deadline has passed.
class DeadlinePassed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Space {
public:
  // Materialising (enumerate) is refused above this cross product
  // (std::length_error): 2^22 configs are about 2 GB as Configs.
  static constexpr std::size_t kEnumerateLimit = std::size_t{1} << 22;
  // count_valid walks cross products up to this size, and samples larger ones.
  static constexpr std::size_t kExactCountLimit = std::size_t{1} << 20;

  // Throws std::invalid_argument on a duplicate or empty axis, or when the
  // cross product would exceed 2^64 - 1 configurations.
  void add(Axis axis);
  void require(Constraint constraint);
  void note_pruned(PrunedAxis pruned) { pruned_.push_back(std::move(pruned)); }
  // Keeps only the configs of one shard (shard.hpp): they are the valid
  // ones from now on, for every strategy and count. A whole shard (1/1)
  // restricts nothing. Restricting twice is std::invalid_argument.
  void restrict_to(Shard shard);
  [[nodiscard]] const std::optional<Shard>& shard() const { return shard_; }

  [[nodiscard]] const std::vector<Axis>& axes() const { return axes_; }
  [[nodiscard]] const Axis& axis(const std::string& name) const; // throws std::out_of_range
  [[nodiscard]] const std::vector<Constraint>& constraints() const { return constraints_; }
  [[nodiscard]] const std::vector<PrunedAxis>& pruned() const { return pruned_; }

  // Size of the full cross product, before constraints and shard.
  [[nodiscard]] std::size_t cross_product_size() const;
  // Every valid config, in grid order (the first axis varies slowest), in
  // memory: for tests and small spaces. Throws std::length_error above
  // kEnumerateLimit; searching never needs it (GridCursor walks the same order).
  [[nodiscard]] std::vector<Config> enumerate() const;
  // The valid configs, counted exactly when the cross product is at most
  // `exact_limit`, else estimated from a deterministic, evenly spread sample
  // of 65536 cross-product points (a Weyl sequence: no engine, same every time).
  [[nodiscard]] ValidCount count_valid(std::size_t exact_limit = kExactCountLimit) const;
  // How many points count_valid samples above its walk limit, and the k-th
  // of them (k < kSamples): the golden-ratio Weyl sequence scaled onto the
  // cross product, evenly spread and unrelated to its axis periods.
  static constexpr std::size_t kSamples = 65536;
  [[nodiscard]] std::size_t sample_index(std::size_t k) const;
  // The config at a cross-product index (grid order), valid or not.
  // Precondition: index < cross_product_size().
  [[nodiscard]] Config at_index(std::size_t index) const;
  // The same, written into `into` (reusing its storage: no allocation once it
  // holds every axis), for loops that decode millions of indices.
  void at_index(std::size_t index, Config& into) const;
  // The inverse: the cross-product index of a config, valid or not; nullopt
  // when it lacks an axis, has one the space does not, or a value off its axis.
  //   s.index_of(s.at_index(5)) == 5
  [[nodiscard]] std::optional<std::size_t> index_of(const Config& config) const;

  // Has a value on every axis, on the axis, satisfies every constraint and
  // lies in the shard.
  [[nodiscard]] bool is_valid(const Config& config) const;
  // is_valid for a config built from the axes' own values (at_index, a
  // cursor): checks only the constraints and the shard, the fast path of
  // walking and sampling.
  [[nodiscard]] bool admits(const Config& config) const;
  // While set, admits() throws DeadlinePassed once the time is past: a walk
  // or a draw looking for the configs of a sparse shard (a few among 4x10^10)
  // stops when the run's time budget does, not hours later inside one
  // strategy's next(). Not part of the space's JSON or copies' meaning.
  void set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline) { deadline_ = deadline; }
  // Why a config is invalid; nullopt when it is valid.
  [[nodiscard]] std::optional<std::string> violation(const Config& config) const;
  // The first constraint a config with a value on every axis breaks (the one
  // violation() names); nullptr when it breaks none.
  [[nodiscard]] const Constraint* broken_constraint(const Config& config) const;

  // "block_size=256 packing=2 layout=soa"
  [[nodiscard]] std::string format(const Config& config) const;
  // {"block_size": 256, "layout": "soa"}; round-trips through config_from_json.
  [[nodiscard]] nlohmann::json config_to_json(const Config& config) const;
  [[nodiscard]] Config config_from_json(const nlohmann::json& j) const; // throws std::invalid_argument
  // The same for a configuration saved before the space grew (a profile
  // entry of an older memtune): an axis it lacks takes its first value, which
  // the templates keep as the kernel the axis did not exist for.
  [[nodiscard]] Config config_from_saved_json(const nlohmann::json& j) const;
  // config_from_saved_json when the saved configuration parses and is valid
  // here; nullopt otherwise (another size's float4 best at an odd size, an
  // axis value this space lacks).
  [[nodiscard]] std::optional<Config> valid_saved_config(const nlohmann::json& j) const;
  // A configuration another problem kept, as this space takes it: itself
  // when valid; else, where it breaks only constraints that mark their
  // breakers as duplicates (Constraint::duplicates_of: the fdtd's zfill that
  // gives one z-chunk at this size is zfill 0), the configuration of the
  // same kernel that the space keeps, each broken one's settings applied in
  // turn; nullopt otherwise.
  [[nodiscard]] std::optional<Config> same_kernel(Config config) const;
  // same_kernel of a saved configuration (config_from_saved_json); nullopt
  // when it does not parse here either.
  [[nodiscard]] std::optional<Config> same_kernel_of_saved(const nlohmann::json& j) const;

  [[nodiscard]] nlohmann::json to_json() const;
  static Space from_json(const nlohmann::json& j); // throws std::invalid_argument

private:
  std::vector<Axis> axes_;
  std::vector<Constraint> constraints_;
  std::vector<PrunedAxis> pruned_;
  std::optional<Shard> shard_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

} // namespace memtune::search
