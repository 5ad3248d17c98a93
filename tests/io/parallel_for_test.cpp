#include <memtune/io/parallel_for.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace memtune;

TEST_CASE("parallel_for covers every index once, in chunks of at least min_chunk") {
  // The body records, the test checks: no assertion runs off the test's thread.
  std::vector<std::atomic<int>> seen(1000);
  std::atomic<int> empty{0};
  parallel_for(1000, [&](std::int64_t begin, std::int64_t end) {
    if (begin >= end) ++empty;
    for (std::int64_t i = begin; i < end; ++i) ++seen[static_cast<std::size_t>(i)];
  }, 10);
  for (const auto& s : seen) CHECK(s == 1);
  CHECK(empty == 0);
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;
  parallel_for(5, [&](std::int64_t begin, std::int64_t end) { calls.emplace_back(begin, end); }, 64);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == std::pair<std::int64_t, std::int64_t>{0, 5});
}

TEST_CASE("an exception in a chunk reaches the caller after every chunk ended: the lowest chunk's") {
  std::atomic<int> ended{0};
  const auto throwing = [&](std::int64_t begin, std::int64_t end) {
    ++ended;
    if (end == 1000 || begin == 0) throw std::runtime_error("chunk at " + std::to_string(begin));
  };
  CHECK_THROWS_WITH(parallel_for(1000, throwing, 10), "chunk at 0");
  CHECK(ended == std::min<int>(100, static_cast<int>(std::max(1U, std::thread::hardware_concurrency()))));
}
