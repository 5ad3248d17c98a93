// Every matvec candidate, launched on the GPU at odd sizes and in both
// layouts, must match the reference kernel; every split launch must leave its
// counters ready for the next; cuBLAS sgemv, where present, must run and
// verify in the same run; and at 8192 x 8192 the best must reach cuBLAS.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/tune/tuner.hpp>

#include <memtune/measure/reference_run.hpp>
#include <memtune/measure/workload.hpp>
#include <memtune/measure/device.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>

#include <iostream>
#include <map>

namespace {

memtune::Problem problem(std::int64_t rows, std::int64_t cols, memtune::templates::MatvecLayout layout) {
  return {{"rows", rows}, {"cols", cols}, {"layout", static_cast<std::int64_t>(layout)}};
}

constexpr memtune::templates::MatvecLayout kLayouts[] = {memtune::templates::MatvecLayout::col,
                                                         memtune::templates::MatvecLayout::row};

} // namespace

TEST_CASE("matvec: every candidate is verified at odd sizes, both layouts") {
  // 1x1; odd 31x17; tall and thin; short and wide (splits); non-multiple
  // rectangles that open float2 (rows or cols = 2 mod 4) and float4 with
  // ragged row tiles and splits.
  const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1},     {31, 17},     {1000003, 3}, {3, 100003},
                                                         {1000, 4098}, {4098, 1000}, {2052, 777}};
  for (auto layout : kLayouts) {
    for (auto [m, n] : sizes) {
      CAPTURE(static_cast<int>(layout));
      CAPTURE(m);
      CAPTURE(n);
      const memtune::TuningResult r = memtune::tune(memtune::templates::matvec_description(), problem(m, n, layout), quick_options());
      check_every_candidate_ok(r); // nothing here needs more than the device has
    }
  }
}

TEST_CASE("matvec: every split launch leaves its counters at zero for the next") {
  // The tuner's poison() zeroes the counters before each verification, so it
  // cannot see a launch that fails to reset them; the timed launches rely on
  // it. Here only y is poisoned between launches.
  using namespace memtune;
  cuda::Context context(0);
  cuda::Stream stream;
  int major = 0, minor = 0;
  MEMTUNE_CU(cuda::driver_api().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, context.device()));
  MEMTUNE_CU(cuda::driver_api().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, context.device()));
  const int cc = major * 10 + minor;
  const auto& t = templates::matvec_description();
  for (auto layout : kLayouts) {
    const Problem p = problem(2052, 4098, layout);
    Target target = local_target(0);
    DescribedWorkload workload(t, p, target, 7);
    workload.upload({cc, nullptr});
    // The expected y: matvec.cu's reference kernel on this workload.
    REQUIRE(!run_reference(t, p, target, workload, nullptr, stream.get()));
    const search::Space space = t.space(p, target);
    int split_configs = 0;
    std::map<std::string, CompileResult> binaries; // configurations differing only in splits share one
    for (const auto& c : space.enumerate()) {
      if (c.at("splits") == 1) continue;
      CAPTURE(space.format(c));
      ++split_configs;
      const LaunchSpec l = t.launch(c, p, target);
      auto it = binaries.find(l.name_expression);
      if (it == binaries.end())
        it = binaries.emplace(l.name_expression, compile_cached(t.compile_request(l, cc), nullptr)).first;
      const CompileResult& compiled = it->second;
      REQUIRE(compiled.ok);
      cuda::Module module(compiled.cubin);
      CUfunction fn = module.function(compiled.lowered_name);
      std::vector<void*> args = workload.kernel_args(c);
      workload.prepare(module.get(), c);
      workload.poison(stream.get()); // zeroes the counters once
      for (int launch = 0; launch < 3; ++launch) {
        // Only y is poisoned again: the counters stay as the last launch left them.
        MEMTUNE_CU(cuda::driver_api().cuMemsetD32Async(workload.buffer("y"), 0x7FC00000U, static_cast<std::size_t>(p.at("rows")),
                                                       stream.get()));
        MEMTUNE_CU(cuda::driver_api().cuLaunchKernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                                                      0, stream.get(), args.data(), nullptr));
        const Verification v = workload.verify(stream.get());
        CAPTURE(launch);
        CHECK(v.ok);
      }
    }
    CHECK(split_configs > 10);
  }
}

TEST_CASE("matvec: cuBLAS sgemv runs and verifies in the same run, when present") {
  for (auto layout : kLayouts) {
    for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{31, 17}, {4098, 1000}}) {
      CAPTURE(static_cast<int>(layout));
      CAPTURE(m);
      memtune::TuneOptions o = quick_options();
      o.compare = {"cublas"};
      o.budget = 5;
      const memtune::TuningResult r = memtune::tune(memtune::templates::matvec_description(), problem(m, n, layout), o);
      REQUIRE(r.baselines.size() == 1);
      const auto& b = r.baselines[0];
      CHECK(b.name == "cublas");
      if (!b.available) {
        MESSAGE("cuBLAS not available: " << b.message);
        CHECK(!b.message.empty());
        continue;
      }
      CAPTURE(b.message);
      CHECK(b.verified);
      REQUIRE(b.timing.has_value());
      CHECK(b.timing->median_s > 0);
      CHECK(b.gbps > 0);
      std::cout << memtune::describe_baseline(r, b) << "\n";
    }
  }
  memtune::TuneOptions bad = quick_options();
  bad.compare = {"magma"};
  CHECK_THROWS_AS(memtune::tune(memtune::templates::matvec_description(), problem(31, 17, memtune::templates::MatvecLayout::col), bad),
                  std::invalid_argument);
}

TEST_CASE("matvec at 8192 x 8192: the best reaches cuBLAS sgemv (bar: 1.00x on an H100, checked at 0.9x here)") {
  memtune::TuneOptions o = quick_options();
  o.measure.min_samples = 10;
  o.measure.max_samples = 30;
  o.measure.max_seconds = 0.2;
  o.compare = {"cublas"};
  for (auto layout : kLayouts) {
    CAPTURE(static_cast<int>(layout));
    const memtune::TuningResult r = memtune::tune(memtune::templates::matvec_description(), problem(8192, 8192, layout), o);
    const auto* best = r.best();
    REQUIRE(best != nullptr);
    REQUIRE(r.ceiling.has_value());
    std::cout << "matvec 8192x8192 " << (layout == memtune::templates::MatvecLayout::col ? "col" : "row") << ": best "
              << r.space.format(best->config) << " " << best->timing->median_s * 1e6 << " us, " << best->gbps
              << " GB/s = " << best->fraction_of_ceiling * 100 << "% of the copy ceiling\n";
    for (const auto& b : r.baselines) std::cout << "  " << memtune::describe_baseline(r, b) << "\n";
    const std::string note = memtune::templates::matvec_description().hooks.explain(r);
    if (!note.empty()) std::cout << "  " << note << "\n";
    CHECK(best->fraction_of_ceiling >= 0.85);
    REQUIRE(r.baselines.size() == 1);
    if (r.baselines[0].timing) CHECK(r.baselines[0].timing->median_s / best->timing->median_s >= 0.9);
  }
}
