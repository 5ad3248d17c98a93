#pragma once
// Running the example user kernels (examples/kernels/*/*.cu) on the CPU, as
// tests/templates does for the templates (cuda_emulation.hpp), plus what those
// kernels use beyond it: uint4, __fmaf_rn. And the bridge from a description to a kernel instantiation:
// each configuration of the description's space is launched with the
// description's own grid and block, so the launch expressions are checked too.
#include <memtune/description/description_json.hpp>

#include <doctest/doctest.h>

#include "../templates/cuda_emulation.hpp"
#include "../support/catalogue_target.hpp"

#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

namespace cuda_emulation {
// run_grid with gridDim and blockDim set for the kernel.
template <class Launch> void run(const memtune::LaunchSpec& l, Launch launch) {
  gridDim = {l.grid.x, l.grid.y, l.grid.z};
  blockDim = {l.block.x, l.block.y, l.block.z};
  run_grid(blockDim, gridDim, launch);
}
} // namespace cuda_emulation

struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }

// Calls f.template operator()<V>() for each value.
template <int... V, class F> void for_each_value(F&& f) { (f.template operator()<V>(), ...); }

// Calls f(config, launch, runner) for every valid configuration of `d`'s
// space for `problem` on `target`, with the runner of the instantiation
// named by the configuration's first parameters (the runners' key length;
// later parameters change only the launch, e.g. a grid's blocks per SM).
// Returns how many configurations ran.
template <class Runner, class F>
std::size_t for_each_config(const memtune::KernelDescription& d, const memtune::Target& target,
                            const memtune::Problem& problem, const std::map<std::vector<std::int64_t>, Runner>& runners,
                            F&& f) {
  const memtune::Problem p = d.complete(problem);
  const memtune::search::Space space = d.space(p, target);
  const std::size_t key_length = runners.begin()->first.size();
  std::size_t ran = 0;
  for (const memtune::search::Config& c : space.enumerate()) {
    std::vector<std::int64_t> key;
    for (std::size_t i = 0; i < key_length; ++i) key.push_back(c.at(space.axes()[i].name));
    const auto it = runners.find(key);
    REQUIRE_MESSAGE(it != runners.end(), "no instantiation for " << space.format(c));
    CAPTURE(space.format(c));
    f(c, d.launch(c, p, target), it->second);
    ++ran;
  }
  return ran;
}
