#pragma once
// Compiles candidates on worker threads (all cores by default) while the
// caller times earlier ones on the GPU. NVRTC is thread-safe across programs;
// an nvcc compile is a child process per worker, so both spread over the cores.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/compile/compile_request.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace memtune {

class CompilePool {
public:
  // threads == 0: one per hardware thread. The cache may be null.
  // `nvrtc_library` (CompilerChoice::nvrtc_library): requests that name no
  // compiler are compiled with that loaded NVRTC; empty: the linked one.
  CompilePool(const CompileCache* cache, unsigned threads = 0, std::string nvrtc_library = {});
  ~CompilePool(); // finishes queued work, joins; never throws
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // The future holds the result, or rethrows what the compile threw. A
  // request identical to an earlier one (same cache key: configurations that
  // differ only in a launch-time setting such as the bank mode) is compiled
  // once and shares that result.
  std::future<CompileResult> submit(CompileRequest request);
  [[nodiscard]] unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

private:
  void work();
  const CompileCache* cache_;
  std::string nvrtc_library_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<CompileResult()>> queue_;
  std::unordered_map<std::string, std::shared_future<CompileResult>> submitted_; // by cache key digest
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

} // namespace memtune
