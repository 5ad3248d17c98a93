// memtune-worker itself (isolate/src/cuda_worker.cpp): it rebuilds a
// built-in template by name and a description file from its text, with the
// tuning process's fingerprint, and refuses one that differs. On this machine
// it then says there is no GPU; on a GPU machine it is ready.
#include <memtune/isolate/worker_pool.hpp>

#include "../support/asset_description.hpp"
#include "tune/src/candidate_executor.hpp"

#include <memtune/description/kernel_builder.hpp>

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

TEST_CASE("memtune-worker rebuilds a built-in template from its data and a description file, and refuses a different one") {
  // The built-ins travel as data, as any description does: the worker holds no catalogue.
  for (const KernelDescription* t : templates::descriptions()) {
    CAPTURE(t->name);
    const DescriptionSource source = worker_source(*t);
    CHECK(source.kind == DescriptionSource::Kind::data);
    CHECK(gpu_or_not(start_worker(source, t->complete({}))) == "ready");
  }
  const KernelDescription& filter = templates::find_description("filter");
  DescriptionSource by_name{DescriptionSource::Kind::built_in, "filter", "", "", filter.fingerprint()};
  CHECK(start_worker(by_name, filter.complete({{"n", 4096}})).find("'filter' is not a built-in description of this worker") !=
        std::string::npos);

  const KernelDescription& scale = asset_description("scale.json"); // headers and an include path
  std::ifstream in(scale.origin);
  std::stringstream text;
  text << in.rdbuf();
  DescriptionSource file{DescriptionSource::Kind::file, scale.name, scale.origin, text.str(), scale.fingerprint()};
  CHECK(gpu_or_not(start_worker(file, scale.complete({{"n", 4096}}))) == "ready");

  file.fingerprint = "0123456789abcdef0123456789abcdef";
  CHECK(start_worker(file, scale.complete({{"n", 4096}})).find("a source file changed on disk") != std::string::npos);
  DescriptionSource unknown{DescriptionSource::Kind::built_in, "saxpy_in_cpp", "", "", "00"};
  CHECK(start_worker(unknown, {}).find("not a built-in description of this worker") != std::string::npos);
}

TEST_CASE("memtune-worker rebuilds a description made in C++ from its data; one with a C++ callback goes by name") {
  KernelBuilder b("saxpy_in_cpp");
  b.source("saxpy.cu", "template <int B> __global__ void saxpy(const float* x, float* y, int n) {\n"
                       "  int i = blockIdx.x * B + threadIdx.x; if (i < n) y[i] += 2.0f * x[i]; }\n")
      .kernel("saxpy<{B}>")
      .size("n", 4096, "elements")
      .parameter(search::Axis::ordinal("B", {128, 256}))
      .block("B")
      .grid("ceil_div(n, B)")
      .buffer("x", ElementType::f32, "n", BufferRole::in)
      .buffer("y", ElementType::f32, "n", BufferRole::inout)
      .scalar("n", ElementType::i32, "n")
      .verify_with_config({{"B", 128}}, {0.0, 1e-6});
  const KernelDescription data = b.build();
  const DescriptionSource source = worker_source(data);
  CHECK(source.kind == DescriptionSource::Kind::data);
  CHECK(gpu_or_not(start_worker(source, data.complete({{"n", 4096}}))) == "ready");

  DescriptionSource changed = source;
  changed.fingerprint = "0123456789abcdef0123456789abcdef";
  CHECK(start_worker(changed, data.complete({{"n", 4096}})).find("does not survive its data form") != std::string::npos);
  DescriptionSource garbage = source;
  garbage.content = "{\"description\": 1}";
  CHECK(start_worker(garbage, data.complete({{"n", 4096}})).find("cannot rebuild 'saxpy_in_cpp' from data") !=
        std::string::npos);

  const KernelDescription callback =
      b.verify_with([](const ReferenceRequest&) { return std::vector<ExpectedOutput>{}; }).build();
  CHECK(worker_source(callback).kind == DescriptionSource::Kind::built_in);
  CHECK(worker_source(asset_description("scale.json")).kind == DescriptionSource::Kind::file);
}
