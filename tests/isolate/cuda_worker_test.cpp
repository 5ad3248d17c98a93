// memtune-worker itself (isolate/src/cuda_worker.cpp): it rebuilds a
// built-in template by name and a description file from its text, with the
// tuning process's fingerprint, and refuses one that differs. On this machine
// it then says there is no GPU; on a GPU machine it is ready.
#include <memtune/isolate/worker_pool.hpp>

#include "../support/asset_description.hpp"

#include <memtune/templates/catalogue.hpp>

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace memtune;
using namespace memtune::isolation;

namespace {

// Starts memtune-worker with `source`: "ready", or the kind of its error.
std::string start_worker(const DescriptionSource& source, const Problem& problem) {
  Hello hello;
  hello.description = source;
  hello.problem = problem;
  WorkerPool pool(MEMTUNE_TEST_WORKER, hello, {0});
  try {
    pool.start();
    return "ready";
  } catch (const WorkerError& e) {
    switch (e.kind) {
    case WorkerError::Kind::no_device: return "no_device";
    case WorkerError::Kind::description: return std::string("description: ") + e.what();
    default: return std::string("other: ") + e.what();
    }
  }
}

std::string gpu_or_not(const std::string& started) { return started == "no_device" ? "ready" : started; }

} // namespace

TEST_CASE("memtune-worker rebuilds a built-in template and a description file, and refuses a different one") {
  const KernelDescription& filter = templates::find_description("filter");
  DescriptionSource built_in{DescriptionSource::Kind::built_in, "filter", "", "", filter.fingerprint()};
  CHECK(gpu_or_not(start_worker(built_in, filter.complete({{"n", 4096}}))) == "ready");

  const KernelDescription& scale = asset_description("scale.json"); // headers and an include path
  std::ifstream in(scale.origin);
  std::stringstream text;
  text << in.rdbuf();
  DescriptionSource file{DescriptionSource::Kind::file, scale.name, scale.origin, text.str(), scale.fingerprint()};
  CHECK(gpu_or_not(start_worker(file, scale.complete({{"n", 4096}}))) == "ready");

  file.fingerprint = "0123456789abcdef0123456789abcdef";
  CHECK(start_worker(file, scale.complete({{"n", 4096}})).find("a source file changed on disk") != std::string::npos);
  DescriptionSource unknown{DescriptionSource::Kind::built_in, "saxpy_in_cpp", "", "", "00"};
  CHECK(start_worker(unknown, {}).find("not a built-in description of memtune-worker") != std::string::npos);
}
