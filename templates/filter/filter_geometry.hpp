#pragma once
// The filter kernel's geometry for one configuration, for the model: the
// description's own values (filter.cpp's parameters and derived values, which
// its launch reads too), named. The kernel (filter.cu) is checked against the
// model's addresses by tests/templates/filter_emulation_test.cpp.
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

  // `env`: filter_geometry_environment(config, problem, target).
  explicit FilterGeometry(const search::Config& env)
      : n(env.at("n")), taps(env.at("taps")), radius(env.at("radius")), block(env.at("block_size")),
        packing(env.at("packing")), items(env.at("items")), vec(env.at("vec")), align(env.at("align")),
        halo(env.at("halo")), tile(env.at("tile")), tiles(env.at("tiles")), ext(env.at("ext")), seg(env.at("seg")),
        vectors(env.at("vectors")), rounds(env.at("rounds")), blocks(env.at("blocks")) {}
};

// The description's values for one configuration (filter.cpp); a recorded
// configuration without an axis ran the shared-memory kernel, one tile per block, uncapped.
[[nodiscard]] search::Config filter_geometry_environment(const search::Config& config, const Problem& problem,
                                                         const Target& target);

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
