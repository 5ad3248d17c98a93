#include "guarded_buffer.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>

#include <cstring>
#include <vector>

namespace memtune {
namespace {

constexpr std::size_t kGuardWords = GuardedBuffer::kGuardBytes / 4;

// Changed bytes of one guard: how many, and the first's offset from the data.
struct Damage {
  std::size_t bytes = 0;
  std::size_t first = 0;
};

Damage damage(const std::vector<unsigned>& words, bool before) {
  Damage d;
  unsigned pattern = GuardedBuffer::kGuardPattern;
  unsigned char expected[4];
  std::memcpy(expected, &pattern, 4);
  const auto* bytes = reinterpret_cast<const unsigned char*>(words.data());
  const std::size_t n = words.size() * 4;
  for (std::size_t i = 0; i < n; ++i) {
    if (bytes[i] == expected[i % 4]) continue;
    // Before the data, the first damage is the one nearest to it.
    const std::size_t distance = before ? n - i : i;
    if (d.bytes == 0 || (before ? distance < d.first : false)) d.first = distance;
    ++d.bytes;
  }
  return d;
}

} // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes)
    : storage_(bytes + 2 * kGuardBytes + (4 - bytes % 4) % 4), bytes_(bytes) {
  arm(nullptr);
  MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(nullptr));
}

void GuardedBuffer::arm(CUstream stream) {
  const cuda::DriverApi& cu = cuda::driver_api();
  // The tail guard starts at the first whole word after the data.
  const CUdeviceptr tail = get() + (bytes_ + 3) / 4 * 4;
  MEMTUNE_CU(cu.cuMemsetD32Async(storage_.get(), kGuardPattern, kGuardWords, stream));
  MEMTUNE_CU(cu.cuMemsetD32Async(tail, kGuardPattern, kGuardWords, stream));
}

void GuardedBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes) MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(get(), host, bytes));
}

void GuardedBuffer::fill_u32(unsigned pattern, CUstream stream) {
  MEMTUNE_CU(cuda::driver_api().cuMemsetD32Async(get(), pattern, bytes_ / 4, stream));
}

void GuardedBuffer::fill_u8(unsigned char pattern, CUstream stream) {
  if (bytes_) MEMTUNE_CU(cuda::driver_api().cuMemsetD8Async(get(), pattern, bytes_, stream));
}

std::optional<std::string> GuardedBuffer::check(CUstream stream) {
  const cuda::DriverApi& cu = cuda::driver_api();
  std::vector<unsigned> before(kGuardWords), after(kGuardWords);
  MEMTUNE_CU(cu.cuStreamSynchronize(stream));
  MEMTUNE_CU(cu.cuMemcpyDtoH(before.data(), storage_.get(), kGuardBytes));
  MEMTUNE_CU(cu.cuMemcpyDtoH(after.data(), get() + (bytes_ + 3) / 4 * 4, kGuardBytes));
  const Damage b = damage(before, true), a = damage(after, false);
  if (b.bytes == 0 && a.bytes == 0) return std::nullopt;
  std::string where;
  if (a.bytes)
    where = std::to_string(a.bytes) + " bytes after its end (the first at byte " + std::to_string(a.first) +
            " past the end)";
  if (b.bytes)
    where += (where.empty() ? "" : " and ") + std::to_string(b.bytes) + " bytes before its start (the nearest " +
             std::to_string(b.first) + " bytes before it)";
  arm(stream);
  return where;
}

} // namespace memtune
