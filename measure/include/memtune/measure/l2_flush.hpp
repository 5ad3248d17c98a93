#pragma once
// Emptying the L2 of a kernel's data before a cold sample.
//
// Two ways, both with a buffer of twice the L2:
//   clean (default): a small kernel READS the buffer (ld.global.cg), so the L2
//     ends up full of clean lines that the timed kernel can drop for free;
//   dirty (the older protocol, --l2-flush dirty): cuMemsetD32 WRITES it, which
//     leaves about one L2 of dirty lines whose write-back is charged to
//     whatever runs next: the timed kernel pays for DRAM writes it never made.
// Measured on an H100 (a 100 MiB copy, both flushes in one run): the copy
// ceiling is 2818 GB/s after a dirty flush and 3086 GB/s after a clean one;
// a same-size memcpy of the filter's 128 MiB reaches 96.2 % of the dirty
// ceiling but 100 % of the clean one, so only the clean flush lets a kernel
// be compared with the copy it should match.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/module.hpp>

#include <cuda.h>

#include <cstddef>
#include <string_view>

namespace memtune {

enum class FlushKind { clean, dirty };

[[nodiscard]] std::string_view to_string(FlushKind kind);

class L2Flush {
public:
  // Needs a current context; `l2_bytes` is the device's L2 size.
  L2Flush(std::size_t l2_bytes, FlushKind kind);

  // Enqueues the flush on `stream`.
  void enqueue(CUstream stream);

  [[nodiscard]] FlushKind kind() const { return kind_; }
  [[nodiscard]] std::size_t bytes() const { return buffer_.bytes(); }

private:
  FlushKind kind_;
  cuda::DeviceBuffer buffer_;
  cuda::DeviceBuffer sink_; // the read kernel's never-taken store, which keeps its loads
  cuda::Module module_;     // clean only
  CUfunction read_ = nullptr;
};

} // namespace memtune
