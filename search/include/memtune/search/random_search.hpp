#pragma once
// Uniform random sampling of the valid configs, without repetition.
//
// Small spaces (a cross product of at most kShuffleLimit) are shuffled whole,
// as memtune always did, so a seed names the same order as before. Larger
// ones are sampled lazily: a seeded pseudo-random permutation of the
// cross-product indices (lazy_permutation.hpp), skipping invalid configs, in
// constant memory. The orders differ for the same seed.
#include <memtune/search/lazy_permutation.hpp>
#include <memtune/search/strategy.hpp>

#include <limits>
#include <random>
#include <vector>

namespace memtune::search {

class RandomSearch final : public Strategy {
public:
  static constexpr std::size_t kShuffleLimit = std::size_t{1} << 16;

  // The space is borrowed and must outlive the strategy; the engine is used
  // here only. Same seed, same order.
  RandomSearch(const Space& space, std::mt19937_64& engine);
  [[nodiscard]] std::string name() const override { return "random"; }
  std::optional<Config> next() override;
  void observe(const Trial&) override {}
  // The order does not depend on results: callers may run as far ahead as they like.
  [[nodiscard]] std::size_t lookahead() const override { return std::numeric_limits<std::size_t>::max(); }

private:
  const Space* space_;
  std::vector<Config> order_; // small spaces: every valid config, shuffled
  std::size_t next_ = 0;
  std::optional<LazyPermutation> sample_; // large spaces
  Config scratch_;                        // reused by at_index: no allocation per draw
};

} // namespace memtune::search
