#include <memtune/probe/bank_probe.hpp>

#include <stdexcept>

namespace memtune::probe {

const std::vector<BankVariant>& bank_variants() {
  static const std::vector<BankVariant> all = [] {
    std::vector<BankVariant> v;
    const std::pair<int, const char*> strides[] = {{1, "row of a tile (consecutive elements)"},
                                                   {2, "every second element"},
                                                   {16, "every 16th element"},
                                                   {32, "column of a 32 x 32 tile"},
                                                   {33, "column of a padded 32 x 33 tile (tile[N][N+1])"}};
    for (int width : {4, 8})
      for (const auto& [stride, what] : strides) {
        const std::string type = width == 4 ? "f32" : "f64";
        v.push_back({type + "-stride" + std::to_string(stride), "probe_bank_" + type + "_stride" + std::to_string(stride),
                     width, stride, what});
      }
    return v;
  }();
  return all;
}

const BankVariant* find_bank_variant(std::string_view name) {
  for (const auto& v : bank_variants())
    if (v.name == name) return &v;
  return nullptr;
}

std::uint64_t bank_loop_address(const BankVariant& v, int warp, int lane) {
  return static_cast<std::uint64_t>(lane * v.stride + warp) * static_cast<std::uint64_t>(v.width_bytes);
}

std::optional<std::uint64_t> bank_fill_address(const BankVariant& v, int warp, int lane, int iteration) {
  const int element = iteration * bank_block_threads + warp * 32 + lane;
  if (element >= bank_tile_elems) return std::nullopt;
  return static_cast<std::uint64_t>(element) * static_cast<std::uint64_t>(v.width_bytes);
}

BankSimulation simulate_bank_variant(const BankVariant& v, std::int64_t reps, const model::BankConfig& config) {
  using model::AccessKind;
  // Every loop iteration issues the same addresses: simulate one and scale.
  const model::SharedInstruction fill{"staging store", v.width_bytes, AccessKind::store, bank_fill_iterations,
                                      [&v](int warp, int lane, std::int64_t it) {
                                        return bank_fill_address(v, warp, lane, static_cast<int>(it));
                                      }};
  const model::SharedInstruction load{"timed load", v.width_bytes, AccessKind::load, 1,
                                      [&v](int warp, int lane, std::int64_t) -> std::optional<std::uint64_t> {
                                        return bank_loop_address(v, warp, lane);
                                      }};
  const model::SharedInstruction store{"final store", v.width_bytes, AccessKind::store, 1,
                                       [&v](int warp, int lane, std::int64_t) -> std::optional<std::uint64_t> {
                                         return bank_loop_address(v, warp, lane);
                                       }};
  const model::BankReplay r = model::replay_block({fill, load, store}, bank_block_warps, config);
  BankSimulation s;
  s.load_wavefronts = r.per_instruction[1].wavefronts * reps;
  s.load_conflicts = r.per_instruction[1].conflicts() * reps;
  s.load_ways = r.per_instruction[1].worst_ways;
  s.store_wavefronts = r.per_instruction[0].wavefronts + r.per_instruction[2].wavefronts;
  s.store_conflicts = r.per_instruction[0].conflicts() + r.per_instruction[2].conflicts();
  return s;
}

double predict_bank_time(const BankVariant& v, std::int64_t reps, std::int64_t blocks, const Target& target) {
  if (target.sm_count <= 0 || !(target.sm_clock_mhz > 0))
    throw std::invalid_argument("bank model: the target needs an SM count and a clock");
  const BankSimulation s = simulate_bank_variant(v, reps);
  const double wavefronts = static_cast<double>(s.load_wavefronts + s.store_wavefronts) * static_cast<double>(blocks);
  return wavefronts / target.sm_count / (target.sm_clock_mhz * 1e6);
}

} // namespace memtune::probe
