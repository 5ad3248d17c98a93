#pragma once
// The aos_soa kernel's geometry for one configuration, for the model: the
// description's own values (aos_soa.cpp's parameters and derived values,
// which its launch reads too), named. The kernel (aos_soa.cu) is run on the
// CPU by tests/templates/aos_soa_emulation_test.cpp.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>
#include <memtune/templates/aos_soa.hpp>

#include <cstdint>

namespace memtune::templates {

struct AosSoaGeometry {
  std::int64_t n, fields;
  AosSoaOp op;
  AosSoaLayout layout;
  std::int64_t block, items;
  std::int64_t tile;   // elements per block
  std::int64_t blocks; // grid size
  std::int64_t pitch;  // [floats] SoA field pitch
  std::int64_t soa_w;  // soa: consecutive elements per access (min(items, 4))
  std::int64_t vec_v;  // aos_vec: floats per access (4 if items*F % 4 == 0, 2 if even, else 1)
  std::int64_t smem_w; // aos_smem: floats per shared access of a struct (4, 2 or 1, dividing F)

  // `env`: geometry_environment(aos_soa_description(), config, problem, target).
  explicit AosSoaGeometry(const search::Config& env)
      : n(env.at("n")), fields(env.at("fields")), op(static_cast<AosSoaOp>(env.at("op"))),
        layout(static_cast<AosSoaLayout>(env.at("layout"))), block(env.at("block_size")), items(env.at("items")),
        tile(env.at("tile")), blocks(env.at("blocks")), pitch(env.at("pitch")), soa_w(env.at("soa_w")),
        vec_v(env.at("vec_v")), smem_w(env.at("smem_w")) {}

  [[nodiscard]] bool reads_struct() const { return op != AosSoaOp::write; }
  [[nodiscard]] bool writes_struct() const { return op != AosSoaOp::read; }
};

// The configuration's memory accesses for the analytical model (no GPU): aos_soa_access.cpp.
[[nodiscard]] AccessPattern aos_soa_access_pattern(const search::Config& config, const Problem& problem,
                                                   const Target& target);

} // namespace memtune::templates
