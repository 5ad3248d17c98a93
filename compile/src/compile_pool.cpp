#include <memtune/compile/compile_pool.hpp>

#include <algorithm>

namespace memtune {

CompilePool::CompilePool(const CompileCache* cache, unsigned threads, std::string nvrtc_library)
    : cache_(cache), nvrtc_library_(std::move(nvrtc_library)) {
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& w : workers_) w.join();
}

std::future<CompileResult> CompilePool::submit(CompileRequest request) {
  if (request.nvrtc_library.empty()) request.nvrtc_library = nvrtc_library_;
  const std::string key = CompileCache::key_digest(request);
  std::shared_future<CompileResult> shared;
  bool fresh = false;
  {
    std::lock_guard lock(mutex_);
    auto it = submitted_.find(key);
    if (it == submitted_.end()) {
      std::packaged_task<CompileResult()> task(
          [this, r = std::move(request)] { return compile_cached(r, cache_); });
      it = submitted_.emplace(key, task.get_future().share()).first;
      queue_.push_back(std::move(task));
      fresh = true;
    }
    shared = it->second;
  }
  if (fresh) ready_.notify_one();
  // Each caller gets its own future; get() waits for the one compile.
  return std::async(std::launch::deferred, [shared] { return shared.get(); });
}

void CompilePool::work() {
  while (true) {
    std::packaged_task<CompileResult()> task;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return; // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task(); // exceptions land in the future
  }
}

} // namespace memtune
