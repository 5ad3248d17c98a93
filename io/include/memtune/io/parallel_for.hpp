#pragma once
// Splits [0, count) into contiguous chunks run on all hardware threads.
// Used for CPU references and verification of large problems, which would
// otherwise dominate the tuning time (16M outputs per candidate).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace memtune {

// body(begin, end) is called once per chunk, concurrently.
inline void parallel_for(std::int64_t count, const std::function<void(std::int64_t, std::int64_t)>& body,
                         std::int64_t min_chunk = 1 << 16) {
  const auto hw = static_cast<std::int64_t>(std::max(1U, std::thread::hardware_concurrency()));
  const std::int64_t chunks = std::clamp<std::int64_t>(count / std::max<std::int64_t>(min_chunk, 1), 1, hw);
  if (chunks == 1) {
    body(0, count);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(chunks - 1));
  const std::int64_t step = (count + chunks - 1) / chunks;
  for (std::int64_t c = 1; c < chunks; ++c) {
    const std::int64_t b = std::min(count, c * step), e = std::min(count, (c + 1) * step);
    threads.emplace_back([&body, b, e] { body(b, e); });
  }
  body(0, std::min(count, step));
  for (auto& t : threads) t.join();
}

} // namespace memtune
