#pragma once
// How one configuration of a kernel is compiled and launched: what a kernel
// description's expressions evaluate to for one configuration and problem.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memtune {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  [[nodiscard]] std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

struct LaunchSpec {
  std::string name_expression;      // "filter_kernel<256, 1, 4, 4, 1>"
  std::vector<std::string> options; // NVRTC options from the description's defines, e.g. "-DMEMTUNE_TAPS=21"
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_smem_bytes = 0; // [bytes]
  // Launched with cuLaunchCooperativeKernel: every block resident at once, so
  // the kernel may synchronise the whole grid (cooperative_groups' grid.sync()).
  bool cooperative = false;
};

} // namespace memtune
