#pragma once
// The aos_soa kernel's geometry for one configuration: the same arithmetic as
// templates/aos_soa/aos_soa.cu, in one place for the launch, the workload and
// the model.
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

  AosSoaGeometry(const search::Config& c, const Problem& p)
      : n(p.at("n")), fields(p.at("fields")), op(static_cast<AosSoaOp>(p.at("op"))),
        layout(static_cast<AosSoaLayout>(c.at("layout"))), block(c.at("block_size")), items(c.at("items")),
        tile(block * items), blocks((n + tile - 1) / tile), pitch(aos_soa_pitch(n)), soa_w(items < 4 ? items : 4),
        vec_v((items * fields) % 4 == 0 ? 4 : (items * fields) % 2 == 0 ? 2 : 1),
        smem_w(fields % 4 == 0 ? 4 : fields % 2 == 0 ? 2 : 1) {}

  [[nodiscard]] bool reads_struct() const { return op != AosSoaOp::write; }
  [[nodiscard]] bool writes_struct() const { return op != AosSoaOp::read; }
  [[nodiscard]] std::size_t smem_bytes() const {
    return layout == AosSoaLayout::aos_smem ? static_cast<std::size_t>(tile * fields * 4) : 0;
  }
};

// The configuration's memory accesses for the analytical model (no GPU): aos_soa_access.cpp.
[[nodiscard]] AccessPattern aos_soa_access_pattern(const search::Config& config, const Problem& problem,
                                                   const Target& target);

} // namespace memtune::templates
