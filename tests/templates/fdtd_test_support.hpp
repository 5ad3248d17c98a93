#pragma once
// What tests/templates/fdtd_test.cpp and fdtd_model_test.cpp share: a target
// of known limits, problems and configurations of the fdtd's space, and one
// global instruction's warp access.
#include <memtune/model/global_access.hpp>
#include <memtune/templates/fdtd.hpp>

#include "../support/test_target.hpp"

#include <cstddef>
#include <cstdint>

namespace memtune::fdtd_test {

inline Target target_for(int cc, std::size_t smem_optin) {
  Target t = test_target(cc, smem_optin);
  t.max_threads_per_sm = 2048;
  t.max_warps_per_sm = 64;
  t.regs_per_sm = 65536;
  t.smem_per_block = 48 * 1024;
  t.smem_per_sm = smem_optin + 1024; // the opt-in limit leaves the 1 KiB the driver reserves for a block
  t.sm_count = 132;
  return t;
}
inline Target h100_like() { return target_for(90, 227 * 1024); }

inline Problem problem(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t radius) {
  return {{"nx", nx}, {"ny", ny}, {"nz", nz}, {"radius", radius}};
}
inline Problem default_problem() { return problem(512, 512, 256, 4); }

inline search::Config config(std::int64_t bx, std::int64_t by, std::int64_t vx, std::int64_t zsplit, std::int64_t prefetch,
                      std::int64_t min_warps, std::int64_t pad = 1) {
  return {{"bx", bx},           {"by", by},   {"vx", vx}, {"zsplit", zsplit}, {"prefetch", prefetch},
          {"min_warps", min_warps}, {"pad", pad}, {"scheme", 0}, {"ky", 1}, {"zu", 3}, {"copy", 0}, {"zfill", 0}};
}
// A ring configuration (scheme ring, pad 0; its z-chunks from zfill).
inline search::Config ring(std::int64_t bx, std::int64_t by, std::int64_t vx, std::int64_t ky, std::int64_t prefetch,
                    std::int64_t zu, std::int64_t copy, std::int64_t zfill = 0, std::int64_t min_warps = 0) {
  return {{"bx", bx},       {"by", by},     {"vx", vx}, {"zsplit", 1}, {"prefetch", prefetch},
          {"min_warps", min_warps}, {"pad", 0}, {"scheme", 1}, {"ky", ky}, {"zu", zu}, {"copy", copy}, {"zfill", zfill}};
}
inline bool is_ring(const search::Config& c) { return c.at("scheme") == 1; }

inline model::WarpAccess warp_access(const GlobalInstruction& g, int warp, std::int64_t it) {
  return model::WarpAccess::from_function([&](int lane) { return g.address(warp, lane, it); }, g.width_bytes, g.kind);
}

} // namespace memtune::fdtd_test
