#include <memtune/model/occupancy.hpp>

// NVIDIA's occupancy calculator: the same arithmetic as the CUDA occupancy
// spreadsheet and cudaOccupancyMaxActiveBlocksPerMultiprocessor, header-only.
#include <cuda_occupancy.h>

#include <climits>
#include <sstream>
#include <stdexcept>

namespace memtune::model {

const char* to_string(Limiter l) {
  switch (l) {
  case Limiter::threads_warps: return "threads/warps";
  case Limiter::registers: return "registers";
  case Limiter::shared_memory: return "shared memory";
  case Limiter::blocks_per_sm: return "blocks per SM";
  case Limiter::barriers: return "barriers";
  }
  return "?";
}

namespace {

std::string kib(std::size_t bytes) {
  std::ostringstream s;
  if (bytes % 1024 == 0) s << bytes / 1024 << " KiB";
  else s << static_cast<double>(bytes) / 1024.0 << " KiB";
  return s.str();
}

int unlimited_as_minus_one(int v) { return v == INT_MAX ? -1 : v; }

} // namespace

Occupancy compute_occupancy(const Target& t, const KernelResources& k) {
  if (k.block_threads <= 0) throw std::invalid_argument("occupancy: block_threads must be > 0");
  if (k.regs_per_thread < 0) throw std::invalid_argument("occupancy: regs_per_thread must be >= 0");

  cudaOccDeviceProp prop;
  prop.computeMajor = t.cc_major;
  prop.computeMinor = t.cc_minor;
  prop.maxThreadsPerBlock = t.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = t.max_threads_per_sm;
  prop.regsPerBlock = t.max_regs_per_block;
  prop.regsPerMultiprocessor = t.regs_per_sm;
  prop.warpSize = t.warp_size;
  prop.sharedMemPerBlock = t.smem_per_block;
  prop.sharedMemPerMultiprocessor = t.smem_per_sm;
  prop.numSms = t.sm_count;
  prop.sharedMemPerBlockOptin = t.smem_per_block_optin;
  prop.reservedSharedMemPerBlock = t.reserved_smem_per_block;

  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = t.max_threads_per_block;
  attr.numRegs = k.regs_per_thread;
  attr.sharedSizeBytes = k.static_smem;
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  // memtune opts in (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES) whenever
  // a candidate needs more than the default 48 KiB, so the opt-in limit applies.
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.maxDynamicSharedSizeBytes =
      t.smem_per_block_optin > k.static_smem ? t.smem_per_block_optin - k.static_smem : 0;
  attr.numBlockBarriers = 1; // __syncthreads uses barrier 0 only

  cudaOccDeviceState state; // default carve-out preference

  cudaOccResult r{};
  const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, k.block_threads, k.dynamic_smem);
  if (err == CUDA_OCC_ERROR_UNKNOWN_DEVICE)
    throw std::invalid_argument("occupancy: cuda_occupancy.h does not know compute capability " + t.arch() +
                                " (target " + t.name + ")");
  if (err != CUDA_OCC_SUCCESS)
    throw std::invalid_argument("occupancy: cuda_occupancy.h rejected the input for target " + t.name);

  Occupancy o;
  o.warps_per_block = (k.block_threads + t.warp_size - 1) / t.warp_size;
  o.max_warps_per_sm = t.max_warps_per_sm;
  o.limit_threads_warps = unlimited_as_minus_one(r.blockLimitWarps);
  o.limit_registers = unlimited_as_minus_one(r.blockLimitRegs);
  o.limit_shared_memory = unlimited_as_minus_one(r.blockLimitSharedMem);
  o.limit_blocks_per_sm = unlimited_as_minus_one(r.blockLimitBlocks);
  o.regs_per_block = r.allocatedRegistersPerBlock;
  o.smem_per_block = r.allocatedSharedMemPerBlock;
  o.blocks_per_sm = r.activeBlocksPerMultiprocessor;

  // cuda_occupancy.h allows 256 registers per thread from Volta on; the ISA
  // (and the Programming Guide) stops at 255, and the target may say less.
  if (k.regs_per_thread > t.max_regs_per_thread) {
    o.blocks_per_sm = 0;
    o.limit_registers = 0;
    r.limitingFactors = OCC_LIMIT_REGISTERS;
  }

  // With the default carve-out preference cuda_occupancy.h counts against the
  // largest carve-out on every architecture.
  o.smem_per_sm = t.smem_per_sm;
  o.regs_per_sm = t.regs_per_sm;

  if (r.limitingFactors & OCC_LIMIT_WARPS) o.limiters.push_back(Limiter::threads_warps);
  if (r.limitingFactors & OCC_LIMIT_REGISTERS) o.limiters.push_back(Limiter::registers);
  if (r.limitingFactors & OCC_LIMIT_SHARED_MEMORY) o.limiters.push_back(Limiter::shared_memory);
  if (r.limitingFactors & OCC_LIMIT_BLOCKS) o.limiters.push_back(Limiter::blocks_per_sm);
  if (r.limitingFactors & OCC_LIMIT_BARRIERS) o.limiters.push_back(Limiter::barriers);

  if (o.blocks_per_sm == 0) {
    std::ostringstream why;
    if (k.block_threads > t.max_threads_per_block)
      why << k.block_threads << " threads per block exceed the limit of " << t.max_threads_per_block;
    else if (o.limit_registers == 0)
      why << k.regs_per_thread << " registers per thread (" << o.regs_per_block
          << " per block) exceed the limit (" << t.max_regs_per_thread << " per thread, " << t.max_regs_per_block
          << " per block)";
    else if (o.limit_shared_memory == 0)
      why << kib(o.smem_per_block) << " of shared memory per block exceed the limit of "
          << kib(t.smem_per_block_optin + t.reserved_smem_per_block);
    else
      why << "no block fits on an SM";
    o.cannot_launch = why.str();
  }

  o.warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.fraction = static_cast<double>(o.warps_per_sm) / static_cast<double>(o.max_warps_per_sm);
  return o;
}

std::string Occupancy::describe() const {
  std::ostringstream s;
  if (blocks_per_sm == 0) {
    s << "cannot launch: " << cannot_launch;
    return s.str();
  }
  s << warps_per_sm << " warps/SM of " << max_warps_per_sm << " (" << static_cast<int>(fraction * 100.0 + 0.5)
    << "%), " << blocks_per_sm << (blocks_per_sm == 1 ? " block/SM" : " blocks/SM") << ", limited by ";
  for (std::size_t i = 0; i < limiters.size(); ++i) {
    if (i) s << (i + 1 == limiters.size() ? " and " : ", ");
    s << to_string(limiters[i]) << " (";
    const char* blocks = blocks_per_sm == 1 ? " block × " : " blocks × ";
    switch (limiters[i]) {
    case Limiter::threads_warps:
      s << blocks_per_sm << blocks << warps_per_block << " warps of " << max_warps_per_sm;
      break;
    case Limiter::registers:
      s << blocks_per_sm << blocks << regs_per_block << " registers of " << regs_per_sm;
      break;
    case Limiter::shared_memory:
      s << blocks_per_sm << blocks << kib(smem_per_block) << " of " << kib(smem_per_sm);
      break;
    case Limiter::blocks_per_sm: s << blocks_per_sm << " blocks is the SM's maximum"; break;
    case Limiter::barriers: s << "hardware barriers"; break;
    }
    s << ")";
  }
  return s.str();
}

} // namespace memtune::model
