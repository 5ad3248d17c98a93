#include <memtune/search/space.hpp>

#include <memtune/search/grid_cursor.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace memtune::search {

Axis Axis::ordinal(std::string name, std::vector<std::int64_t> values, std::string description) {
  if (values.empty()) throw std::invalid_argument("axis '" + name + "' has no values");
  if (!std::is_sorted(values.begin(), values.end()) ||
      std::adjacent_find(values.begin(), values.end()) != values.end())
    throw std::invalid_argument("ordinal axis '" + name + "' needs strictly increasing values");
  return Axis{std::move(name), AxisKind::ordinal, std::move(values), {}, std::move(description)};
}

Axis Axis::categorical(std::string name, std::vector<std::string> labels, std::string description) {
  if (labels.empty()) throw std::invalid_argument("axis '" + name + "' has no labels");
  std::vector<std::int64_t> values(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) values[i] = static_cast<std::int64_t>(i);
  return Axis{std::move(name), AxisKind::categorical, std::move(values), std::move(labels), std::move(description)};
}

std::string Axis::format(std::int64_t value) const {
  if (kind == AxisKind::categorical && value >= 0 && static_cast<std::size_t>(value) < labels.size())
    return labels[static_cast<std::size_t>(value)];
  return std::to_string(value);
}

std::optional<std::int64_t> Axis::parse(const std::string& text) const {
  if (kind == AxisKind::categorical) {
    auto it = std::find(labels.begin(), labels.end(), text);
    if (it == labels.end()) return std::nullopt;
    return static_cast<std::int64_t>(it - labels.begin());
  }
  try {
    std::size_t used = 0;
    const std::int64_t v = std::stoll(text, &used);
    if (used != text.size() || !contains(v)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool Axis::contains(std::int64_t value) const {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::size_t Axis::index_of(std::int64_t value) const {
  auto it = std::find(values.begin(), values.end(), value);
  if (it == values.end())
    throw std::out_of_range("value " + std::to_string(value) + " is not on axis '" + name + "'");
  return static_cast<std::size_t>(it - values.begin());
}

std::string ValidCount::describe() const {
  if (exact) return std::to_string(value);
  // Two significant figures: the sample cannot support more.
  const double magnitude = value > 0 ? std::pow(10.0, std::floor(std::log10(static_cast<double>(value))) - 1) : 1.0;
  char rounded[32];
  std::snprintf(rounded, sizeof rounded, "%.0f", std::round(static_cast<double>(value) / magnitude) * magnitude);
  return std::string("about ") + rounded + " (estimated: " + std::to_string(hits) + " of " + std::to_string(sampled) +
         " sampled configurations are valid)";
}

void Space::add(Axis a) {
  if (a.name.empty()) throw std::invalid_argument("axis with an empty name");
  if (a.values.empty()) throw std::invalid_argument("axis '" + a.name + "' has no values");
  for (const auto& existing : axes_)
    if (existing.name == a.name) throw std::invalid_argument("duplicate axis '" + a.name + "'");
  std::size_t product = 0;
  if (!axes_.empty() && __builtin_mul_overflow(cross_product_size(), a.values.size(), &product))
    throw std::invalid_argument("axis '" + a.name + "' makes the space larger than 2^64 - 1 configurations");
  axes_.push_back(std::move(a));
}

void Space::require(Constraint constraint) { constraints_.push_back(std::move(constraint)); }

void Space::restrict_to(Shard shard) {
  if (shard_) throw std::invalid_argument("space is already restricted to shard " + shard_->to_string());
  if (!shard.whole()) shard_ = shard;
}

const Axis& Space::axis(const std::string& name) const {
  for (const auto& a : axes_)
    if (a.name == name) return a;
  throw std::out_of_range("space has no axis '" + name + "'");
}

std::size_t Space::cross_product_size() const {
  if (axes_.empty()) return 0;
  std::size_t n = 1;
  for (const auto& a : axes_) n *= a.values.size();
  return n;
}

Config Space::at_index(std::size_t index) const {
  Config c;
  at_index(index, c);
  return c;
}

void Space::at_index(std::size_t index, Config& into) const {
  // The last axis varies fastest, so decode from the back.
  for (auto it = axes_.rbegin(); it != axes_.rend(); ++it) {
    const std::size_t k = it->values.size();
    into.set(it->name, it->values[index % k]);
    index /= k;
  }
}

std::optional<std::size_t> Space::index_of(const Config& config) const {
  if (config.values().size() != axes_.size()) return std::nullopt;
  std::size_t index = 0;
  for (const auto& a : axes_) {
    const auto value = config.values().find(a.name);
    if (value == config.values().end()) return std::nullopt;
    const auto at = std::find(a.values.begin(), a.values.end(), value->second);
    if (at == a.values.end()) return std::nullopt;
    index = index * a.values.size() + static_cast<std::size_t>(at - a.values.begin());
  }
  return index;
}

std::vector<Config> Space::enumerate() const {
  const std::size_t n = cross_product_size();
  if (n > kEnumerateLimit)
    throw std::length_error("space of " + std::to_string(n) + " configurations: listing them all is refused above " +
                            std::to_string(kEnumerateLimit) + " (search it with a strategy, which walks or samples it)");
  std::vector<Config> out;
  GridCursor walk(*this);
  while (auto c = walk.next()) out.push_back(std::move(*c));
  return out;
}

ValidCount Space::count_valid(std::size_t exact_limit) const {
  const std::size_t n = cross_product_size();
  ValidCount count;
  if (n <= exact_limit) {
    GridCursor walk(*this);
    while (walk.next()) ++count.value;
    return count;
  }
  Config point;
  count.exact = false;
  count.sampled = kSamples;
  for (std::size_t k = 0; k < kSamples; ++k) {
    at_index(sample_index(k), point);
    if (admits(point)) ++count.hits;
  }
  count.value = static_cast<std::size_t>(
      std::llround(static_cast<long double>(n) * static_cast<long double>(count.hits) / kSamples));
  return count;
}

std::size_t Space::sample_index(std::size_t k) const {
  // k * 2^64 / phi (mod 2^64), scaled onto [0, n).
  constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  const std::uint64_t u = kGolden * (k + 1);
  return static_cast<std::size_t>((static_cast<unsigned __int128>(u) * cross_product_size()) >> 64);
}

bool Space::is_valid(const Config& config) const { return !violation(config).has_value(); }

bool Space::admits(const Config& config) const {
  if (deadline_ && std::chrono::steady_clock::now() >= *deadline_)
    throw DeadlinePassed("the time budget ran out while looking for valid configurations");
  for (const auto& c : constraints_)
    if (!c.holds(config)) return false;
  return !shard_ || shard_->contains(config);
}

std::optional<std::string> Space::violation(const Config& config) const {
  if (config.values().size() != axes_.size()) return "config has " + std::to_string(config.values().size()) +
                                                      " values for " + std::to_string(axes_.size()) + " axes";
  for (const auto& a : axes_) {
    if (!config.has(a.name)) return "no value for axis '" + a.name + "'";
    if (!a.contains(config.at(a.name)))
      return "value " + std::to_string(config.at(a.name)) + " is not on axis '" + a.name + "'";
  }
  for (const auto& c : constraints_) {
    if (!c.holds(config)) return c.reason().empty() ? "violates " + c.to_string() : c.reason() + " (" + c.to_string() + ")";
  }
  if (shard_ && !shard_->contains(config)) return "not in shard " + shard_->to_string() + " (another shard's job runs it)";
  return std::nullopt;
}

const Constraint* Space::broken_constraint(const Config& config) const {
  for (const auto& c : constraints_)
    if (!c.holds(config)) return &c;
  return nullptr;
}

std::string Space::format(const Config& config) const {
  std::string s;
  for (const auto& a : axes_) {
    if (!config.has(a.name)) continue;
    if (!s.empty()) s += ' ';
    s += a.name + "=" + a.format(config.at(a.name));
  }
  return s;
}

nlohmann::json Space::config_to_json(const Config& config) const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& a : axes_) {
    if (!config.has(a.name)) continue;
    const std::int64_t v = config.at(a.name);
    if (a.kind == AxisKind::categorical) j[a.name] = a.format(v);
    else j[a.name] = v;
  }
  return j;
}

Config Space::config_from_saved_json(const nlohmann::json& j) const {
  if (!j.is_object()) throw std::invalid_argument("config: expected a JSON object, got " + j.dump());
  nlohmann::json completed = j;
  for (const auto& a : axes_)
    if (!completed.contains(a.name) && !a.values.empty())
      completed[a.name] = a.kind == AxisKind::ordinal ? nlohmann::json(a.values.front()) : nlohmann::json(a.labels.front());
  return config_from_json(completed);
}

std::optional<Config> Space::valid_saved_config(const nlohmann::json& j) const {
  try {
    Config c = config_from_saved_json(j);
    if (violation(c)) return std::nullopt;
    return c;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::optional<Config> Space::same_kernel(Config config) const {
  // Each step applies one broken constraint's settings; a constraint broken
  // again after its own step would loop, so the steps are bounded.
  for (std::size_t step = 0; step <= constraints_.size(); ++step) {
    if (!violation(config)) return config;
    const Constraint* broken = broken_constraint(config);
    if (!broken || broken->duplicate_settings().empty()) return std::nullopt; // an axis value, the shard, a plain one
    for (const auto& [name, value] : broken->duplicate_settings()) config.set(name, value);
  }
  return std::nullopt;
}

std::optional<Config> Space::same_kernel_of_saved(const nlohmann::json& j) const {
  try {
    return same_kernel(config_from_saved_json(j));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

Config Space::config_from_json(const nlohmann::json& j) const {
  if (!j.is_object()) throw std::invalid_argument("config: expected a JSON object, got " + j.dump());
  Config c;
  for (const auto& a : axes_) {
    if (!j.contains(a.name)) throw std::invalid_argument("config: missing axis '" + a.name + "'");
    const auto& v = j.at(a.name);
    std::optional<std::int64_t> value;
    if (v.is_number_integer()) value = a.kind == AxisKind::ordinal && a.contains(v.get<std::int64_t>())
                                           ? std::optional(v.get<std::int64_t>()) : std::nullopt;
    else if (v.is_string()) value = a.parse(v.get<std::string>());
    if (!value) throw std::invalid_argument("config: " + v.dump() + " is not a value of axis '" + a.name + "'");
    c.set(a.name, *value);
  }
  for (const auto& [key, _] : j.items())
    if (!c.has(key)) throw std::invalid_argument("config: unknown axis '" + key + "'");
  return c;
}

nlohmann::json Space::to_json() const {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : axes_) {
    nlohmann::json ja{{"name", a.name}, {"kind", a.kind == AxisKind::ordinal ? "ordinal" : "categorical"}};
    if (a.kind == AxisKind::ordinal) ja["values"] = a.values;
    else ja["labels"] = a.labels;
    if (!a.description.empty()) ja["description"] = a.description;
    axes.push_back(std::move(ja));
  }
  nlohmann::json constraints = nlohmann::json::array();
  for (const auto& c : constraints_) constraints.push_back(c.to_json());
  nlohmann::json pruned = nlohmann::json::array();
  for (const auto& p : pruned_) pruned.push_back({{"name", p.name}, {"reason", p.reason}});
  nlohmann::json j{{"axes", axes}, {"constraints", constraints}, {"pruned", pruned}};
  if (shard_) j["shard"] = {{"index", shard_->index}, {"count", shard_->count}};
  return j;
}

Space Space::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("axes") || !j.at("axes").is_array())
    throw std::invalid_argument("space: expected an object with an 'axes' array");
  Space s;
  try {
    for (const auto& ja : j.at("axes")) {
      const std::string name = ja.at("name").get<std::string>();
      const std::string kind = ja.value("kind", std::string("ordinal"));
      const std::string description = ja.value("description", std::string{});
      if (kind == "ordinal") s.add(Axis::ordinal(name, ja.at("values").get<std::vector<std::int64_t>>(), description));
      else if (kind == "categorical")
        s.add(Axis::categorical(name, ja.at("labels").get<std::vector<std::string>>(), description));
      else throw std::invalid_argument("space: axis '" + name + "' has unknown kind '" + kind + "'");
    }
    if (j.contains("constraints"))
      for (const auto& jc : j.at("constraints")) s.require(Constraint::from_json(jc));
    if (j.contains("pruned"))
      for (const auto& jp : j.at("pruned"))
        s.note_pruned({jp.at("name").get<std::string>(), jp.at("reason").get<std::string>()});
    if (j.contains("shard"))
      s.restrict_to(Shard::of(j.at("shard").at("index").get<std::uint64_t>(), j.at("shard").at("count").get<std::uint64_t>()));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("space: ") + e.what());
  }
  return s;
}

} // namespace memtune::search
