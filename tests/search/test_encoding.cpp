#include "spaces.hpp"

#include <memtune/search/encoding.hpp>

#include <doctest/doctest.h>

using namespace memtune::search;

TEST_CASE("ordinal axes encode as normalised positions, categorical as label indices") {
  const Space s = testing::small_space(); // block {64..512}, items {1,2,4}, layout {aos,soa}
  const Encoder e(s);
  CHECK(e.ordinal_axes() == 2);
  CHECK(e.categorical_axes() == 1);
  CHECK(e.category_counts() == std::vector<std::size_t>{2});
  const Points p = e.encode({Config{{"block_size", 64}, {"items", 1}, {"layout", 0}},
                             Config{{"block_size", 256}, {"items", 4}, {"layout", 1}}});
  REQUIRE(p.size() == 2);
  CHECK(p.ordinal(0, 0) == 0.0);
  CHECK(p.ordinal(1, 0) == doctest::Approx(2.0 / 3.0));
  CHECK(p.ordinal(1, 1) == 1.0);
  CHECK(p.categorical(1, 0) == 1);

  const Points sub = p.subset({1, 1, 0});
  CHECK(sub.size() == 3);
  CHECK(sub.ordinal(0, 0) == p.ordinal(1, 0));
  CHECK(sub.categorical(2, 0) == 0);
}

TEST_CASE("a single-valued axis encodes as 0, and a foreign value is an error") {
  Space s;
  s.add(Axis::ordinal("only", {7}));
  const Encoder e(s);
  CHECK(e.encode({Config{{"only", 7}}}).ordinal(0, 0) == 0.0);
  CHECK_THROWS_AS((void)e.encode({Config{{"only", 8}}}), std::out_of_range);
  CHECK_THROWS_AS((void)e.encode({Config{{"other", 7}}}), std::out_of_range);
}

TEST_CASE("configs encode the same from their cross-product indices") {
  const Space s = testing::small_space();
  const Encoder e(s);
  std::vector<std::size_t> indices;
  std::vector<Config> configs;
  for (std::size_t i = s.cross_product_size(); i-- > 0;) { // every point, valid or not, in reverse
    indices.push_back(i);
    configs.push_back(s.at_index(i));
  }
  const Points from_configs = e.encode(configs), from_indices = e.encode_indices(indices);
  CHECK(from_indices.ordinal == from_configs.ordinal);
  CHECK(from_indices.categorical == from_configs.categorical);
}
