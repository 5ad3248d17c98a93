// The generic workload of a kernel description on the GPU: poison, inout
// refills (also between timed samples), scratch zeroing, constant symbols,
// typed outputs, the reference run and verification by segment.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>
#include <memtune/measure/workload.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/measure/device_verifier.hpp>
#include <memtune/measure/measure.hpp>
#include <memtune/description/random_data.hpp>

#include <memtune/measure/reference_run.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

using namespace memtune;

namespace {

const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

struct Gpu {
  cuda::Context context{0};
  cuda::Stream stream;
  Target target = local_target(0);
  UploadContext upload{target.compute_capability(), nullptr};
};

// Compiles, loads and launches one configuration of `d` on the workload.
struct Candidate {
  Candidate(const KernelDescription& d, const search::Config& c, const Problem& p, const Gpu& gpu)
      : launch(d.launch(c, p, gpu.target)) {
    const CompileResult compiled = nvrtc_compile_for(d.compile_request(launch, gpu.target.compute_capability()));
    module = cuda::Module(compiled.cubin);
    function = module.function(compiled.lowered_name);
  }
  static CompileResult nvrtc_compile_for(const CompileRequest& r) {
    const CompileResult compiled = compile_cached(r, nullptr);
    REQUIRE_MESSAGE(compiled.ok, compiled.log);
    return compiled;
  }
  void run(std::vector<void*>& args, CUstream stream) const {
    MEMTUNE_CU(cuda::driver_api().cuLaunchKernel(function, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x,
                                                 launch.block.y, launch.block.z,
                                                 static_cast<unsigned>(launch.dynamic_smem_bytes), stream, args.data(),
                                                 nullptr));
  }
  LaunchSpec launch;
  cuda::Module module;
  CUfunction function = nullptr;
};

} // namespace

TEST_CASE("typed verification: integer and double outputs, absolute plus relative tolerance") {
  Gpu gpu;
  auto kernel = std::make_shared<const CompareKernel>(gpu.upload);
  std::vector<std::int32_t> ints{1, -2, 3, 40000};
  const std::vector<double> int_ref{1, -2, 3, 40000};
  cuda::DeviceBuffer d_ints(ints.size() * 4);
  d_ints.upload(ints.data(), ints.size() * 4);
  DeviceVerifier exact(int_ref, ElementType::i32, {0.0, 0.0}, kernel);
  CHECK(exact.verify(d_ints.get(), gpu.stream.get()).ok);
  ints[3] = 40001;
  d_ints.upload(ints.data(), ints.size() * 4);
  Verification v = exact.verify(d_ints.get(), gpu.stream.get());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad == 3);
  CHECK(v.max_abs_error == 1.0);
  DeviceVerifier relative(int_ref, ElementType::i32, {0.0, 1e-4}, kernel); // 40000 * 1e-4 = 4
  CHECK(relative.verify(d_ints.get(), gpu.stream.get()).ok);

  const std::vector<double> doubles{1e10, 0.0, -3.5};
  std::vector<double> out = doubles;
  out[0] += 5.0; // within 1e-9 relative
  cuda::DeviceBuffer d_doubles(out.size() * 8);
  d_doubles.upload(out.data(), out.size() * 8);
  DeviceVerifier rel(doubles, ElementType::f64, {1e-12, 1e-9}, kernel);
  CHECK(rel.verify(d_doubles.get(), gpu.stream.get()).ok);
  d_doubles.fill_u8(0xFF, gpu.stream.get()); // the f64 poison: NaN everywhere
  v = rel.verify(d_doubles.get(), gpu.stream.get());
  CHECK(v.bad_count == 3);
  CHECK(std::isinf(v.max_abs_error));
}

TEST_CASE("typed verification: half and bfloat16 lanes of vector outputs, and poison that agrees in a partial output") {
  Gpu gpu;
  auto kernel = std::make_shared<const CompareKernel>(gpu.upload);
  // half2 x 2 elements = 4 lanes.
  const std::vector<double> ref{1.0, -0.5, 0.333, 100.0};
  std::vector<std::uint16_t> halves;
  for (double r : ref) halves.push_back(half_from_double(r));
  cuda::DeviceBuffer d_halves(halves.size() * 2);
  d_halves.upload(halves.data(), halves.size() * 2);
  const ElementType half2 = vector_type(ElementType::f16, 2);
  DeviceVerifier within(ref, half2, {0.0, 1e-3}, kernel);
  CHECK(within.verify(d_halves.get(), gpu.stream.get()).ok); // 0.333 rounds to 0.33301
  DeviceVerifier exact(ref, half2, {0.0, 0.0}, kernel);
  const Verification v = exact.verify(d_halves.get(), gpu.stream.get());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad == 2);
  std::vector<std::uint16_t> bf;
  for (double r : ref) bf.push_back(bfloat16_from_double(r));
  cuda::DeviceBuffer d_bf(bf.size() * 2);
  d_bf.upload(bf.data(), bf.size() * 2);
  DeviceVerifier bf_check(ref, ElementType::bf16, {0.0, 1e-2}, kernel);
  CHECK(bf_check.verify(d_bf.get(), gpu.stream.get()).ok);

  // A partial output: NaN expected where the reference left the poison.
  const std::vector<double> partial_ref{std::nan(""), 2.0, std::nan("")};
  std::vector<float> out{std::nanf(""), 2.0F, std::nanf("")};
  cuda::DeviceBuffer d_out(out.size() * 4);
  d_out.upload(out.data(), out.size() * 4);
  DeviceVerifier partial(partial_ref, ElementType::f32, {0.0, 0.0}, kernel, /*poison_agrees=*/true);
  CHECK(partial.verify(d_out.get(), gpu.stream.get()).ok);
  DeviceVerifier whole(partial_ref, ElementType::f32, {0.0, 0.0}, kernel);
  CHECK_FALSE(whole.verify(d_out.get(), gpu.stream.get()).ok);
  out[2] = 1.0F; // written where the reference did not write
  d_out.upload(out.data(), out.size() * 4);
  CHECK_FALSE(partial.verify(d_out.get(), gpu.stream.get()).ok);
}

TEST_CASE("a reference configuration's outputs verify the candidates, and catch a wrong one") {
  Gpu gpu;
  const KernelDescription d = load_description(kAssets / "transpose.json");
  for (const Problem& given : {Problem{{"rows", 1000}, {"cols", 3001}}, Problem{{"rows", 1}, {"cols", 33}}}) {
    const Problem p = d.complete(given);
    CAPTURE(format_problem(p));
    DescribedWorkload w(d, p, gpu.target, 1);
    w.upload(gpu.upload);
    CHECK_FALSE(w.has_reference());
    REQUIRE_FALSE(run_reference(d, p, gpu.target, w, nullptr, gpu.stream.get()).has_value());
    CHECK(w.has_reference());
    CHECK_FALSE(w.refills_before_launch());
    for (const auto& c : d.space(p, gpu.target).enumerate()) {
      CAPTURE(d.space(p, gpu.target).format(c));
      Candidate k(d, c, p, gpu);
      auto args = w.kernel_args(c);
      w.prepare(k.module.get(), c);
      w.poison(gpu.stream.get());
      k.run(args, gpu.stream.get());
      const Verification v = w.verify(gpu.stream.get());
      CHECK(v.ok);
      CHECK(v.max_abs_error == 0.0);
    }
  }

  // A kernel that skips the last row block leaves poison: wrong, and where.
  KernelDescription broken = d;
  broken.launch_exprs.grid_y = search::parse_expr("max(ceil_div(rows, TILE) - 1, 1)");
  const Problem p = d.complete({{"rows", 100}, {"cols", 64}});
  DescribedWorkload w(broken, p, gpu.target, 1);
  w.upload(gpu.upload);
  REQUIRE_FALSE(run_reference(d, p, gpu.target, w, nullptr, gpu.stream.get()).has_value());
  const search::Config c{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}};
  Candidate k(broken, c, p, gpu);
  auto args = w.kernel_args(c);
  w.poison(gpu.stream.get());
  k.run(args, gpu.stream.get());
  const Verification v = w.verify(gpu.stream.get());
  CHECK_FALSE(v.ok);
  CHECK(v.buffer == "out");
  CHECK(v.first_bad == 96); // out is cols x rows: row 0, column 96 (rows 96..99 of in were never read)
  CHECK(std::isinf(v.max_abs_error));

  // A reference that leaves outputs unwritten is no reference.
  DescribedWorkload w2(broken, p, gpu.target, 1);
  w2.upload(gpu.upload);
  const auto why = run_reference(broken, p, gpu.target, w2, nullptr, gpu.stream.get());
  REQUIRE(why.has_value());
  CHECK(why->find("the reference configuration (transpose<16, 16, 1>): the reference left 256 of the 6400 values of 'out' unwritten") !=
        std::string::npos);
}

TEST_CASE("inout buffers are re-filled before every launch, timed ones too; a reference kernel verifies") {
  Gpu gpu;
  const KernelDescription d = load_description(kAssets / "scale.json");
  const Problem p = d.complete({{"n", 1000003}});
  DescribedWorkload w(d, p, gpu.target, 3);
  w.upload(gpu.upload);
  REQUIRE_FALSE(run_reference(d, p, gpu.target, w, nullptr, gpu.stream.get()).has_value());
  CHECK(w.refills_before_launch());
  const search::Space space = d.space(p, gpu.target);
  const search::Config c = space.enumerate().back();
  Candidate k(d, c, p, gpu);
  auto args = w.kernel_args(c);
  w.prepare(k.module.get(), c);
  w.poison(gpu.stream.get());
  k.run(args, gpu.stream.get());
  CHECK(w.verify(gpu.stream.get()).ok);

  // Launched again without a refill, y accumulates twice: wrong.
  k.run(args, gpu.stream.get());
  CHECK_FALSE(w.verify(gpu.stream.get()).ok);

  // The Timer's per-sample hook refills before each sample, outside the timed region.
  MeasureOptions quick;
  quick.min_samples = quick.max_samples = 10;
  quick.warmup = 1;
  Timer timer(gpu.target.l2_bytes, quick);
  auto launch = [&](CUstream s) { k.run(args, s); };
  (void)timer.time(launch, [&](CUstream s) { w.before_launch(s); });
  CHECK(w.verify(timer.stream()).ok);
  (void)timer.time(launch);
  CHECK_FALSE(w.verify(timer.stream()).ok);
}

TEST_CASE("constants, scratch, integer outputs and a C++ reference checked by segment") {
  Gpu gpu;
  constexpr const char* kSource = R"(
__constant__ int memtune_test_offsets[4];
template <int BLOCK>
__global__ void histogram_like(const int* __restrict__ in, int* out, unsigned* counter, int n, int pitch) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + memtune_test_offsets[i % 4];   // first segment: n values
    out[pitch + i] = 2 * in[i];                     // second segment, after a gap left unchecked
  }
  if (atomicAdd(counter, 1u) == 0) out[pitch - 1] = -7; // only correct when the counter starts at zero
}
)";
  Fill offsets{Fill::Kind::custom};
  offsets.custom = [](const FillRequest&, std::span<std::byte> out) {
    const int values[4] = {10, 20, 30, 40};
    std::memcpy(out.data(), values, sizeof values);
  };
  const KernelDescription d =
      KernelBuilder("integers")
          .source("h.cu", kSource)
          .kernel("histogram_like<{BLOCK}>")
          .size("n", 1000, "elements")
          .parameter(search::Axis::ordinal("BLOCK", {64, 256}))
          .derived("pitch", "round_up(n + 1, 32)")
          .block("BLOCK")
          .grid("ceil_div(n, BLOCK)")
          .buffer("in", ElementType::i32, "n", BufferRole::in)
          .buffer("out", ElementType::i32, "2 * pitch", BufferRole::out)
          .buffer("counter", ElementType::u32, "1", BufferRole::scratch)
          .scalar("n", ElementType::i32, "n")
          .scalar("pitch", ElementType::i32, "pitch")
          .constant("memtune_test_offsets", ElementType::i32, "4", offsets, /*from_caller=*/false)
          .bytes_moved("12 * n")
          .verify_with(
              [](const ReferenceRequest& r) {
                const auto in = r.input_as<std::int32_t>("in");
                const std::int64_t n = r.problem.at("n"), pitch = (n + 1 + 31) / 32 * 32;
                ExpectedOutput first{"out", 0, {}, {0, 0}}, marker{"out", pitch - 1, {-7}, {0, 0}},
                    second{"out", pitch, {}, {0, 0}};
                for (std::int64_t i = 0; i < n; ++i) {
                  first.values.push_back(in[static_cast<std::size_t>(i)] + 10 * (i % 4 + 1));
                  second.values.push_back(2.0 * in[static_cast<std::size_t>(i)]);
                }
                return std::vector<ExpectedOutput>{first, marker, second};
              })
          .build();
  const Problem p = d.complete({});
  DescribedWorkload w(d, p, gpu.target, 5);
  w.upload(gpu.upload);
  CHECK(w.has_reference());
  for (const auto& c : d.space(p, gpu.target).enumerate()) {
    Candidate k(d, c, p, gpu);
    auto args = w.kernel_args(c);
    w.prepare(k.module.get(), c);
    w.poison(gpu.stream.get()); // zeroes the counter
    k.run(args, gpu.stream.get());
    CHECK(w.verify(gpu.stream.get()).ok);
    k.run(args, gpu.stream.get()); // counter not zeroed: the marker is not written again, but it is still there
    CHECK(w.verify(gpu.stream.get()).ok);
    w.poison(gpu.stream.get());
    CHECK(w.verify(gpu.stream.get()).bad_count == 2 * 1000 + 1); // 0xA5 poison everywhere that is checked
  }

  // A symbol of another size, or none, is named.
  KernelDescription wrong_size = d;
  wrong_size.constants[0].count = 8;
  DescribedWorkload w8(wrong_size, p, gpu.target, 5);
  w8.upload(gpu.upload);
  Candidate k(d, {{"BLOCK", 64}}, p, gpu);
  CHECK_THROWS_WITH_AS(w8.prepare(k.module.get(), {{"BLOCK", 64}}),
                       doctest::Contains("the symbol 'memtune_test_offsets' has 16 bytes in the module, but constants[0] gives 8 x int32 = 32 bytes"),
                       std::invalid_argument);
  KernelDescription renamed = d;
  renamed.constants[0].symbol = "offsets";
  DescribedWorkload wr(renamed, p, gpu.target, 5);
  wr.upload(gpu.upload);
  CHECK_THROWS_WITH_AS(wr.prepare(k.module.get(), {{"BLOCK", 64}}), doctest::Contains("the module has no symbol 'offsets'"),
                       std::invalid_argument);
}
