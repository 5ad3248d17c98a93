#pragma once
// What a compiled kernel uses of an SM (registers, shared memory, stack,
// spills) and the largest block it allows, read from ptxas' report and the
// CUBIN by every compiler back end and the compile cache.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

// Resources of the compiled kernel, from ptxas' verbose report and the CUBIN.
struct KernelResources {
  int registers = 0;                  // per thread
  std::size_t static_smem_bytes = 0;  // per block, besides dynamic shared memory
  std::size_t stack_frame_bytes = 0;  // per thread (local memory)
  std::size_t spill_store_bytes = 0;
  std::size_t spill_load_bytes = 0;
  // The most threads a block may have as compiled (__launch_bounds__: the
  // CUBIN's .maxntid); 0 where the kernel sets no bound.
  int max_threads_per_block = 0;
  [[nodiscard]] bool spills() const { return spill_store_bytes + spill_load_bytes > 0; }
};

// Why a block of `block_threads` cannot launch a kernel compiled to allow at
// most `max_threads` (0: no bound), or nothing. One wording for the driver's
// bound on a GPU and the CUBIN's for a target that is not here.
std::optional<std::string> block_bound_violation(int block_threads, int max_threads, int registers);

// Parses ptxas' "-v" report for one kernel (by lowered name).
KernelResources parse_ptxas_report(const std::string& log, const std::string& lowered_name);
// A compiled kernel's resources: ptxas' report and the block-size bound its
// CUBIN records (cubin_elf.hpp; unknown, 0, where the CUBIN is not an ELF
// memtune reads). Every compiler back end and the compile cache read them here.
KernelResources compiled_kernel_resources(const std::string& log, const std::string& lowered_name,
                                          const std::vector<char>& cubin);

} // namespace memtune
