#include <memtune/io/errors.hpp>
#include <memtune/measure/memory_fit.hpp>

#include <memtune/description/argument_values.hpp>

#include <algorithm>
#include <cstdio>

namespace memtune {

void check_fits_memory(const KernelDescription& kernel, const Problem& problem, const Target& target) {
  // Counts and scalars first: a negative count or a wrapped byte count would pass the sum below.
  const std::uint64_t allocated = description_detail::check_arguments(kernel, problem, target);
  description_detail::check_launch(kernel, problem, target);
  if (target.memory_bytes == 0) return; // unknown
  // The bytes moved, or the buffers' offset + count elements where those are more.
  const std::uint64_t moved = kernel.bytes_moved(problem), needed = std::max(moved, allocated);
  if (needed <= target.memory_bytes) return;
  auto gib = [](std::uint64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f GiB (%llu bytes)", static_cast<double>(bytes) / (1ULL << 30),
                  static_cast<unsigned long long>(bytes));
    return std::string(buf);
  };
  const std::string where = target.origin == "driver" ? "cuDeviceTotalMem" : "memory_bytes in " + target.origin;
  throw ArgumentError("problem " + format_problem(problem, kernel.problem),
                      "its buffers need at least " + gib(needed) +
                          (needed == moved ? " (the bytes one run reads and writes)" : " (their elements, offsets included)") +
                          ", and " +
                          target.display_name + " has " + gib(target.memory_bytes) + " (" + where + ")");
}

} // namespace memtune
