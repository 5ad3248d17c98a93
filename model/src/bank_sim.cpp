#include <memtune/model/bank_sim.hpp>

#include <algorithm>
#include <array>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune::model {

BankConfig BankConfig::for_target(const Target& t, int bank_width_bytes) {
  const auto& w = t.bank_widths_bytes;
  if (std::find(w.begin(), w.end(), bank_width_bytes) == w.end())
    throw std::invalid_argument("target " + t.name + " has no " + std::to_string(bank_width_bytes) +
                                "-byte bank mode");
  BankConfig c;
  c.bank_count = t.bank_count;
  c.bank_width_bytes = bank_width_bytes;
  // Kepler's 4-byte mode is not the same as later GPUs' fixed 4-byte banks.
  c.kepler_4byte_rule = t.cc_major == 3 && bank_width_bytes == 4;
  return c;
}

BankResult simulate_banks(const WarpAccess& access, const BankConfig& config) {
  check_warp_access(access);
  if (config.bank_count != 32) throw std::invalid_argument("bank simulator: bank_count must be 32");
  if (config.bank_width_bytes != 4 && config.bank_width_bytes != 8)
    throw std::invalid_argument("bank simulator: bank width must be 4 or 8 bytes");
  if (config.bank_width_bytes == 8 && config.kepler_4byte_rule)
    throw std::invalid_argument("bank simulator: the Kepler 4-byte rule applies to 4-byte banks only");

  const int width = access.width_bytes;
  const int lanes_per_phase = std::min(warp_lanes, config.row_bytes() / width);
  const auto unit = static_cast<std::uint64_t>(config.bank_width_bytes); // addressing unit of a bank
  const auto banks = static_cast<std::uint64_t>(config.bank_count);

  BankResult r;
  r.phases = warp_lanes / lanes_per_phase;
  for (int phase = 0; phase < r.phases; ++phase) {
    // (bank, row) pairs this phase touches; at most 32 lanes x 4 bank units
    // (a 16-byte access in 4-byte banks). Distinct rows of one bank conflict;
    // the same row is a broadcast. Sorted on the stack, not in sets: the model
    // replays every shared-memory instruction of hundreds of candidates.
    std::array<std::pair<std::uint64_t, std::uint64_t>, 4 * warp_lanes> touched{};
    std::size_t count = 0;
    for (int lane = phase * lanes_per_phase; lane < (phase + 1) * lanes_per_phase; ++lane) {
      const auto& addr = access.lanes[static_cast<std::size_t>(lane)];
      if (!addr) continue;
      // A wide access covers several consecutive bank units.
      for (std::uint64_t a = *addr; a < *addr + static_cast<std::uint64_t>(width); a += unit) {
        const std::uint64_t word = a / unit;
        const std::uint64_t bank = word % banks;
        // Kepler 4-byte mode: a 64-bit bank holds words i and i + 32 of one
        // 64-word segment side by side, so only the segment number conflicts.
        const std::uint64_t row = config.kepler_4byte_rule ? word / (2 * banks) : word;
        touched[count++] = {bank, row};
      }
    }
    if (count == 0) continue;
    const auto end = touched.begin() + static_cast<std::ptrdiff_t>(count);
    std::sort(touched.begin(), end);
    const auto unique_end = std::unique(touched.begin(), end);
    int worst = 1;
    for (auto run = touched.begin(); run != unique_end;) {
      auto next = std::find_if(run, unique_end, [&](const auto& t) { return t.first != run->first; });
      worst = std::max(worst, static_cast<int>(next - run));
      run = next;
    }
    r.wavefronts += worst;
    r.ideal_wavefronts += 1;
    r.ways = std::max(r.ways, worst);
  }
  return r;
}

} // namespace memtune::model
