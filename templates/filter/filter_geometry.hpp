#pragma once
// The filter kernel's geometry for one configuration: the same arithmetic as
// templates/filter/filter.cu, in one place for the launch and the model.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>
#include <memtune/templates/filter.hpp>

#include <cstdint>
#include <vector>

namespace memtune::templates {

struct FilterGeometry {
  std::int64_t n, taps, radius;
  std::int64_t block, packing, items, vec, align;
  std::int64_t halo;    // staged elements left and right of the tile
  std::int64_t tile;    // outputs per block and segment (filter_direct: per tile, `tiles` per block)
  std::int64_t tiles;   // filter_direct's consecutive tiles per block (1 for filter_kernel)
  std::int64_t ext;     // staged elements per segment
  std::int64_t seg;     // segment length
  std::int64_t vectors; // VEC-wide loads per segment and block
  std::int64_t rounds;  // load rounds per thread and segment
  std::int64_t blocks;  // grid size

  FilterGeometry(const search::Config& c, const Problem& p)
      : n(p.at("n")), taps(p.at("taps")), radius(taps / 2), block(c.at("block_size")), packing(c.at("packing")),
        items(c.at("items")), vec(c.at("vec")), align(c.at("align")),
        halo(align ? (radius + 3) / 4 * 4 : radius), tile(block * items), tiles(c.has("tiles") ? c.at("tiles") : 1),
        ext(tile + 2 * halo),
        seg(filter_segment_length(n, packing)), vectors(ext / vec), rounds((vectors + block - 1) / block),
        blocks((seg + tile * tiles - 1) / (tile * tiles)) {}

  [[nodiscard]] std::size_t smem_bytes() const { return static_cast<std::size_t>(ext * packing * 4); }
};

// How the compute phase reads its register window from shared memory: runs of
// equal-width loads in address order, as the compiler emits them for the
// unrolled window (filter_access.cpp).
struct FilterWindowReads {
  struct Run {
    std::int64_t width;  // elements per load (an element is PACK floats)
    std::int64_t count;  // loads of this width per thread
    std::int64_t first;  // window offset of the run's first element
  };
  std::int64_t start = 0; // window's first element, relative to t0 (= ITEMS x thread)
  std::vector<Run> runs;
};
[[nodiscard]] FilterWindowReads window_reads(const FilterGeometry& g);

// filter_direct's accesses (staging direct or shfl, `shuffled` for shfl): filter_direct_access.cpp.
[[nodiscard]] AccessPattern filter_direct_access_pattern(const FilterGeometry& g, bool shuffled);

// The configuration's memory accesses for the analytical model (no GPU): filter_access.cpp.
[[nodiscard]] AccessPattern filter_access_pattern(const search::Config& config, const Problem& problem,
                                                  const Target& target);

} // namespace memtune::templates
