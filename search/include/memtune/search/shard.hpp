#pragma once
// One of N disjoint parts of a search space, for running a search as N
// independent jobs (a Slurm job array, several machines).
//
//   Shard s = Shard::parse("2/4");      // the second of four parts (1-based, as `--shard 2/4`)
//   space.restrict_to(s);               // every strategy now sees only that part
//
// A config belongs to exactly one shard, decided by a hash of its values
// alone: never by a strategy's proposal order, a seed or the rest of the
// space. So the N parts are disjoint, their union is the whole space, and a
// config stays in its shard when a run is resumed, when other axes' values
// change or constraints are added. The hash spreads configs like a random
// draw: a shard holds about 1/N of the valid configs (288 into 4: 72 +- 7),
// not exactly.
#include <memtune/search/config.hpp>

#include <cstdint>
#include <string>

namespace memtune::search {

struct Shard {
  std::uint32_t index = 1; // 1 <= index <= count
  std::uint32_t count = 1;

  // "i/N" with 1 <= i <= N; throws std::invalid_argument saying what is wrong.
  static Shard parse(const std::string& text);
  // Throws std::invalid_argument unless 1 <= index <= count.
  static Shard of(std::uint64_t index, std::uint64_t count);

  [[nodiscard]] bool contains(const Config& config) const;
  [[nodiscard]] bool whole() const { return count == 1; }
  [[nodiscard]] std::string to_string() const; // "2/4"

  friend bool operator==(const Shard&, const Shard&) = default;
};

// The 64-bit key that places a config in its shard: a hash of its axis names
// and values (Config keeps them sorted by name, so the axes' order in the
// space does not matter). Stable across runs, platforms and standard libraries.
[[nodiscard]] std::uint64_t shard_key(const Config& config);

} // namespace memtune::search
