#pragma once
// What memtune reads from a CUBIN's ELF without a GPU: the kernel entry
// points, and the block-size bound a kernel was compiled with.
//
// A `__launch_bounds__(128)` kernel launched with 256 threads fails; on a GPU
// the driver says so (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), and for a
// target that is not here the same bound is in the CUBIN: the kernel's
// `.nv.info.<mangled name>` section holds it as attribute EIATTR_MAX_THREADS
// (0x05, three 32-bit values x, y, z: ptxas' .maxntid).
#include <string>
#include <vector>

namespace memtune {

// The kernel entry points (mangled names) of a CUBIN, in symbol-table order.
// Throws std::invalid_argument for bytes that are not a 64-bit ELF.
std::vector<std::string> cubin_kernel_symbols(const std::vector<char>& cubin);

// The most threads a block of `lowered_name` may have as compiled (x * y * z
// of its .maxntid), or 0 where the kernel sets no bound (or the CUBIN holds no
// record of it). Throws std::invalid_argument for bytes that are not a 64-bit ELF.
int cubin_max_threads_per_block(const std::vector<char>& cubin, const std::string& lowered_name);

} // namespace memtune
