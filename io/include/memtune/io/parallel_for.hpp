#pragma once
// Splits [0, count) into contiguous chunks run on all hardware threads.
// Used for CPU references and verification of large problems, which would
// otherwise dominate the tuning time (16M outputs per candidate), and for
// the model's predictions of a whole space (milliseconds a configuration for
// a description's model section, 10^5 configurations).
#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace memtune {

// body(begin, end) is called once per chunk, concurrently. An exception
// thrown by a chunk is rethrown here once every chunk has ended: the first
// chunk's (in index order) that threw, so the error does not depend on timing.
inline void parallel_for(std::int64_t count, const std::function<void(std::int64_t, std::int64_t)>& body,
                         std::int64_t min_chunk = 1 << 16) {
  const auto hw = static_cast<std::int64_t>(std::max(1U, std::thread::hardware_concurrency()));
  const std::int64_t chunks = std::clamp<std::int64_t>(count / std::max<std::int64_t>(min_chunk, 1), 1, hw);
  if (chunks == 1) {
    body(0, count);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(chunks));
  const std::int64_t step = (count + chunks - 1) / chunks;
  auto run = [&](std::int64_t c) {
    try {
      body(std::min(count, c * step), std::min(count, (c + 1) * step));
    } catch (...) {
      errors[static_cast<std::size_t>(c)] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(chunks - 1));
  for (std::int64_t c = 1; c < chunks; ++c) threads.emplace_back(run, c);
  run(0);
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

} // namespace memtune
