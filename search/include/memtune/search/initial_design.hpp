#pragma once
// A space-filling first batch for model-based search.
//
// Latin hypercube over the encoded coordinates, on the axes' levels: each
// axis's levels split into n strata, one point per stratum, strata paired at
// random across axes; then each point snapped to the nearest candidate not
// yet taken. Constraints make the valid
// set irregular, so sampling the box and snapping keeps the spread while
// never proposing an invalid config. Distance for snapping: squared
// difference on ordinal coordinates plus 1 per categorical mismatch (a
// mismatch counts as far as opposite ends of an ordinal axis); ties go to the
// lowest candidate index, so the result depends only on the engine.
#include <memtune/search/encoding.hpp>

#include <cstddef>
#include <random>
#include <vector>

namespace memtune::search {

// Indices into `candidates` of up to n distinct, previously untaken points;
// marks them in `taken`. category_counts: labels per categorical column.
// Preconditions: taken.size() == candidates.size().
[[nodiscard]] std::vector<std::size_t> latin_hypercube_design(const Points& candidates,
                                                              const std::vector<std::size_t>& category_counts,
                                                              std::size_t n, std::vector<bool>& taken,
                                                              std::mt19937_64& engine);

} // namespace memtune::search
