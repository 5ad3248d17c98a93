// The typed launcher on the GPU: every template and user kernels from their
// description files, launched on the test's own buffers at odd sizes with
// configurations spread over each space (pinned through MEMTUNE_CONFIG), the
// results checked against CPU references; scratch reused across launches;
// caller constants and scalars; and the configuration chain (tune and save,
// profile, nearest size, MEMTUNE_NO_TUNE, MEMTUNE_CONFIG) on a real GPU.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/description/random_data.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/templates/transpose.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace memtune;

namespace {

const std::filesystem::path kExamples = MEMTUNE_TEST_EXAMPLES_DIR;

// Sets an environment variable for a scope, restoring what was there.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

// No store, no tuning: the configuration comes from MEMTUNE_CONFIG or the default.
LauncherOptions pinned_only() {
  LauncherOptions o;
  o.allow_tuning = false;
  o.tune = quick_options();
  return o;
}

// Up to `count` valid configurations spread evenly over the grid order, and the default.
std::vector<search::Config> spread(const KernelDescription& d, const Problem& problem, const Target& target,
                                   std::size_t count) {
  const Problem p = d.complete(problem);
  const std::vector<search::Config> all = d.space(p, target).enumerate();
  REQUIRE(!all.empty());
  std::vector<search::Config> out{d.default_config(p, target)};
  for (std::size_t i = 0; i < count && i < all.size(); ++i) {
    const search::Config& c = all[count == 1 ? 0 : i * (all.size() - 1) / (count - 1)];
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string pin(const KernelDescription& d, const Problem& problem, const Target& target, const search::Config& c) {
  return nlohmann::json{{d.name, d.space(d.complete(problem), target).config_to_json(c)}}.dump();
}

template <class T> std::vector<T> download(const cuda::DeviceBuffer& b, std::size_t count) {
  std::vector<T> out(count);
  b.download(out.data(), count * sizeof(T));
  return out;
}

template <class T> cuda::DeviceBuffer upload(const std::vector<T>& host, std::size_t at_least = 0) {
  cuda::DeviceBuffer b(std::max(host.size() * sizeof(T), at_least));
  b.upload(host.data(), host.size() * sizeof(T));
  return b;
}

template <class T> T* as(const cuda::DeviceBuffer& b) { return reinterpret_cast<T*>(b.get()); }

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  fill_random(v, seed);
  return v;
}

// How many of `got` differ from `want` by more than `tolerance` (NaN always does).
std::size_t wrong(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += std::fabs(got[i] - want[i]) <= tolerance ? 0 : 1;
  return bad;
}

} // namespace

TEST_CASE("launcher: filter on the application's buffers, odd n, configurations across the space, the caller's taps") {
  Session session;
  const KernelDescription& d = templates::filter_description();
  const std::int64_t n = 1000003;
  const Problem problem{{"n", n}, {"taps", 21}};
  const std::vector<float> in = random_floats(n, 1);
  const cuda::DeviceBuffer din = upload(in);
  cuda::DeviceBuffer dout(n * sizeof(float));
  cuda::Stream stream;
  const std::vector<float> taps = templates::random_filter_taps(21, 7), other = templates::random_filter_taps(21, 8);

  for (const search::Config& c : spread(d, problem, session.target(), 8)) {
    CAPTURE(pin(d, problem, session.target(), c));
    const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
    TunedKernel<const float*, float*> fir(session, d, nullptr, pinned_only());
    // A launch before the caller's coefficients exist is refused.
    CHECK_THROWS_WITH_AS(fir(stream.get(), problem, as<const float>(din), as<float>(dout)),
                         doctest::Contains("call set_constant(\"memtune_filter_taps\""), std::invalid_argument);
    fir.set_constant("memtune_filter_taps", taps); // applied to the module loaded above
    CHECK(fir.choice(problem).origin == "MEMTUNE_CONFIG");
    CHECK(fir.choice(problem).config == c);
    fir(stream.get(), problem, as<const float>(din), as<float>(dout));
    stream.synchronize();
    CHECK(wrong(download<float>(dout, n), templates::filter_reference(in, taps), templates::filter_tolerance(taps)) == 0);
    // New coefficients reach the loaded module.
    fir.set_constant("memtune_filter_taps", other);
    fir(stream.get(), problem, as<const float>(din), as<float>(dout));
    stream.synchronize();
    CHECK(wrong(download<float>(dout, n), templates::filter_reference(in, other), templates::filter_tolerance(other)) == 0);
  }
}

TEST_CASE("launcher: the caller's mistakes are errors that name the argument") {
  Session session;
  TunedKernel<const float*, float*> fir(session, templates::filter_description(), nullptr, pinned_only());
  const Problem problem{{"n", 4096}};
  (void)fir.choice(problem); // the module for 21 taps is loaded
  const std::vector<float> taps = templates::random_filter_taps(21, 7);
  CHECK_THROWS_WITH_AS(fir.set_constant("taps", taps), doctest::Contains("(it has: memtune_filter_taps)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(fir.set_constant("memtune_filter_taps", std::vector<double>(21, 0.1)),
                       doctest::Contains("has 84 bytes in the module"), std::invalid_argument); // 21 doubles: 168
  fir.set_constant("memtune_filter_taps", taps);
  cuda::DeviceBuffer in(4096 * sizeof(float)), out(4096 * sizeof(float));
  cuda::Stream stream;
  CHECK_THROWS_WITH_AS(fir(stream.get(), problem, nullptr, as<float>(out)), doctest::Contains("argument 0 ('in') is null"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(fir(stream.get(), problem, as<const float>(in) + 1, as<float>(out)),
                       doctest::Contains("is not 16-byte aligned"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((TunedKernel<const float*, const float*>(session, templates::filter_description(), nullptr)),
                       doctest::Contains("argument 1 ('out')"), std::invalid_argument);
  CHECK_NOTHROW(fir(stream.get(), problem, as<const float>(in), as<float>(out)));
  stream.synchronize();
}

TEST_CASE("launcher: matvec, both layouts, odd sizes, split-K scratch owned by the handle and reused") {
  Session session;
  const KernelDescription& d = templates::matvec_description();
  const std::int64_t rows = 1001, cols = 777;
  const std::vector<float> a = random_floats(rows * cols, 3), x = random_floats(cols, 4);
  const cuda::DeviceBuffer da = upload(a), dx = upload(x);
  cuda::DeviceBuffer dy(rows * sizeof(float));
  cuda::Stream stream;
  for (const auto layout : {templates::MatvecLayout::col, templates::MatvecLayout::row}) {
    const Problem problem{{"rows", rows}, {"cols", cols}, {"layout", static_cast<std::int64_t>(layout)}};
    CAPTURE(format_problem(problem));
    const std::vector<double> want = templates::matvec_reference(layout, rows, cols, a, x);
    const double tolerance = templates::matvec_tolerance(layout, rows, cols, a, x);
    std::vector<search::Config> configs = spread(d, problem, session.target(), 6);
    // Every split count the space has, so that the workspace and its counters are used.
    for (const search::Config& c : d.space(d.complete(problem), session.target()).enumerate())
      if (c.at("splits") > 1 && std::none_of(configs.begin(), configs.end(), [&](const search::Config& k) {
            return k.at("splits") == c.at("splits");
          }))
        configs.push_back(c);
    bool split = false;
    for (const search::Config& c : configs) {
      CAPTURE(pin(d, problem, session.target(), c));
      split |= c.at("splits") > 1;
      const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
      TunedKernel<const float*, const float*, float*> mv(session, d, nullptr, pinned_only());
      for (int launch = 0; launch < 3; ++launch) { // counters must be back at zero for the next launch
        CAPTURE(launch);
        dy.fill_u32(0x7FC00000U, stream.get()); // NaN: an unwritten row shows
        mv(stream.get(), problem, as<const float>(da), as<const float>(dx), as<float>(dy));
        stream.synchronize();
        CHECK(wrong(download<float>(dy, rows), want, tolerance) == 0);
      }
    }
    CHECK(split);
  }
}

TEST_CASE("launcher: aos_soa, every op, the application's data in the configuration's layout") {
  Session session;
  const KernelDescription& d = templates::aos_soa_description();
  const std::int64_t n = 100003, fields = 3, pitch = templates::aos_soa_pitch(n);
  cuda::Stream stream;
  for (const auto op : {templates::AosSoaOp::read, templates::AosSoaOp::write, templates::AosSoaOp::readwrite}) {
    const Problem problem{{"n", n}, {"op", static_cast<std::int64_t>(op)}, {"fields", fields}};
    CAPTURE(format_problem(problem));
    const bool structs = op != templates::AosSoaOp::write;
    const std::vector<float> aos = random_floats(structs ? n * fields : n, 5);
    const std::vector<double> want = templates::aos_soa_reference(op, static_cast<int>(fields), aos); // AoS order
    const double tolerance = templates::aos_soa_tolerance(op, static_cast<int>(fields));
    for (const search::Config& c : spread(d, problem, session.target(), 10)) {
      CAPTURE(pin(d, problem, session.target(), c));
      const bool soa = static_cast<templates::AosSoaLayout>(c.at("layout")) == templates::AosSoaLayout::soa;
      const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
      TunedKernel<const float*, float*> k(session, d, nullptr, pinned_only());
      const cuda::DeviceBuffer din =
          upload(structs && soa ? templates::aos_to_soa<float>(aos, static_cast<int>(fields), 0.0F) : aos);
      const std::size_t out_count = op == templates::AosSoaOp::read ? n : std::max(n * fields, fields * pitch);
      cuda::DeviceBuffer dout(out_count * sizeof(float));
      k(stream.get(), problem, as<const float>(din), as<float>(dout));
      stream.synchronize();
      std::vector<float> got = download<float>(dout, out_count);
      if (op != templates::AosSoaOp::read && soa) got = templates::soa_to_aos<float>(got, n, static_cast<int>(fields));
      got.resize(want.size());
      CHECK(wrong(got, want, tolerance) == 0);
    }
  }
}

TEST_CASE("launcher: fdtd at an odd volume with the caller's coefficients") {
  Session session;
  const KernelDescription& d = templates::fdtd_description();
  const std::int64_t nx = 37, ny = 29, nz = 23;
  const Problem problem{{"nx", nx}, {"ny", ny}, {"nz", nz}, {"radius", 4}};
  const std::vector<float> in = random_floats(nx * ny * nz, 9);
  const std::vector<float> c = templates::random_fdtd_coefficients(4, 10);
  const std::vector<double> want = templates::fdtd_reference(in, nx, ny, nz, c);
  const cuda::DeviceBuffer din = upload(in);
  cuda::DeviceBuffer dout(in.size() * sizeof(float));
  cuda::Stream stream;
  for (const search::Config& config : spread(d, problem, session.target(), 8)) {
    CAPTURE(pin(d, problem, session.target(), config));
    const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), config));
    TunedKernel<const float*, float*> k(session, d, nullptr, pinned_only());
    k.set_constant("memtune_fdtd_coeffs", c);
    k(stream.get(), problem, as<const float>(din), as<float>(dout));
    stream.synchronize();
    CHECK(wrong(download<float>(dout, in.size()), want, templates::fdtd_tolerance(4)) == 0);
  }
}

TEST_CASE("launcher: transpose template at odd shapes") {
  Session session;
  const KernelDescription& d = templates::transpose_description();
  cuda::Stream stream;
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{37, 70}, {1000, 3}}) {
    const Problem problem{{"rows", rows}, {"cols", cols}};
    const std::vector<float> in = random_floats(rows * cols, 11);
    const std::vector<double> want = templates::transpose_reference(in, rows, cols);
    const cuda::DeviceBuffer din = upload(in);
    cuda::DeviceBuffer dout(in.size() * sizeof(float));
    for (const search::Config& c : spread(d, problem, session.target(), 6)) {
      CAPTURE(pin(d, problem, session.target(), c));
      const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
      TunedKernel<const float*, float*> k(session, d, nullptr, pinned_only());
      k(stream.get(), problem, as<const float>(din), as<float>(dout));
      stream.synchronize();
      CHECK(wrong(download<float>(dout, in.size()), want, 0.0) == 0);
    }
  }
}

TEST_CASE("launcher: user kernels from their description files (from_caller scalars, inout bins, scratch)") {
  Session session;
  cuda::Stream stream;

  SUBCASE("stencil: the caller's coefficients as scalars") {
    const KernelDescription d = load_description(kExamples / "kernels/stencil/stencil.json");
    const int nx = 1001, ny = 333;
    const Problem problem{{"nx", nx}, {"ny", ny}};
    const std::vector<float> in = random_floats(static_cast<std::size_t>(nx) * ny, 12);
    const float c0 = 0.6F, c1 = 0.1F;
    std::vector<double> want(in.begin(), in.end());
    for (int y = 1; y < ny - 1; ++y)
      for (int x = 1; x < nx - 1; ++x) {
        const std::size_t at = static_cast<std::size_t>(y) * nx + x;
        want[at] = std::fma(c1, (in[at - 1] + in[at + 1]) + (in[at - nx] + in[at + nx]), c0 * in[at]);
      }
    const cuda::DeviceBuffer din = upload(in);
    cuda::DeviceBuffer dout(in.size() * sizeof(float));
    for (const search::Config& c : spread(d, problem, session.target(), 8)) {
      CAPTURE(pin(d, problem, session.target(), c));
      const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
      TunedKernel<float*, const float*, float, float> k(session, d, nullptr, pinned_only());
      k(stream.get(), problem, as<float>(dout), as<const float>(din), c0, c1);
      stream.synchronize();
      CHECK(wrong(download<float>(dout, in.size()), want, 0.0) == 0);
    }
  }

  SUBCASE("histogram: the application zeroes its bins before each launch") {
    const KernelDescription d = load_description(kExamples / "kernels/histogram/histogram.json");
    const std::int64_t n = 1000003;
    std::vector<std::uint8_t> bytes(n);
    std::mt19937 rng(13);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng() % 7 == 0 ? 42 : rng() % 256); // one hot bin
    std::vector<unsigned> expected(256, 0);
    for (const auto b : bytes) ++expected[b];
    const cuda::DeviceBuffer dbytes = upload(bytes);
    cuda::DeviceBuffer bins(256 * sizeof(unsigned));
    const Problem problem{{"n", n}};
    for (const search::Config& c : spread(d, problem, session.target(), 8)) {
      CAPTURE(pin(d, problem, session.target(), c));
      const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
      TunedKernel<const std::uint8_t*, unsigned*> k(session, d, nullptr, pinned_only());
      for (int launch = 0; launch < 2; ++launch) {
        bins.fill_u8(0, stream.get());
        k(stream.get(), problem, as<const std::uint8_t>(dbytes), as<unsigned>(bins));
        stream.synchronize();
        CHECK(download<unsigned>(bins, 256) == expected);
      }
    }
  }

  SUBCASE("dot_app's kernel: its scratch (partial sums, counter) owned by the handle, reused") {
    const KernelDescription d = load_description(kExamples / "dot_app/dot.json");
    const std::int64_t n = 3000017;
    const std::vector<float> x = random_floats(n, 14), y = random_floats(n, 15);
    double exact = 0, magnitude = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      exact += static_cast<double>(x[i]) * y[i];
      magnitude += std::fabs(static_cast<double>(x[i]) * y[i]);
    }
    const cuda::DeviceBuffer dx = upload(x), dy = upload(y);
    cuda::DeviceBuffer result(sizeof(float));
    const Problem problem{{"n", n}};
    for (const search::Config& c : spread(d, problem, session.target(), 8)) {
      CAPTURE(pin(d, problem, session.target(), c));
      const ScopedEnv env("MEMTUNE_CONFIG", pin(d, problem, session.target(), c));
      TunedKernel<const float*, const float*, float*> k(session, d, nullptr, pinned_only());
      const LaunchSpec& l = k.choice(problem).launch;
      const double chain = static_cast<double>(n) / (l.grid.x * l.block.x) + 4 + 10 + l.grid.x / 32.0 + 6;
      float first = 0;
      for (int launch = 0; launch < 3; ++launch) {
        k(stream.get(), problem, as<const float>(dx), as<const float>(dy), as<float>(result));
        stream.synchronize();
        const float got = download<float>(result, 1)[0];
        CHECK(std::fabs(got - exact) <= chain * 1.2e-7 * magnitude);
        if (launch == 0) first = got;
        CHECK(got == first); // the finish counter was reset: same blocks, same order
      }
    }
  }
}

TEST_CASE("launcher: tune within the budget and save, then the profile, the nearest size, MEMTUNE_NO_TUNE") {
  Session session;
  const auto store_file = std::filesystem::temp_directory_path() / ("memtune-launcher-gpu-" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(store_file);
  ProfileStore store(store_file);
  const KernelDescription d = load_description(kExamples / "kernels/transpose/transpose.json");
  LauncherOptions options;
  options.tune = quick_options();
  options.tune.strategy = "random";
  options.tune.budget = 6;
  const Problem problem{{"rows", 2000}, {"cols", 3000}};
  const std::vector<float> in = random_floats(2000 * 3000, 16);
  const std::vector<double> want = templates::transpose_reference(in, 2000, 3000);
  const cuda::DeviceBuffer din = upload(in);
  cuda::DeviceBuffer dout(in.size() * sizeof(float));
  cuda::Stream stream;
  const auto run = [&](TunedKernel<float*, const float*>& k) {
    k(stream.get(), problem, as<float>(dout), as<const float>(din));
    stream.synchronize();
    CHECK(wrong(download<float>(dout, in.size()), want, 0.0) == 0);
  };

  search::Config tuned;
  {
    TunedKernel<float*, const float*> k(session, d, &store, options);
    const Choice& c = k.choice(problem);
    CHECK(c.origin == "tuned");
    CHECK(c.seconds.tuning > 0.0);
    tuned = c.config;
    run(k);
  }
  REQUIRE(store.entries().size() == 1);
  {
    TunedKernel<float*, const float*> k(session, d, &store, options);
    const Choice& c = k.choice(problem);
    CHECK(c.origin == "profile");
    CHECK(c.config == tuned);
    CHECK(c.seconds.tuning == 0.0);
    run(k);
    // Another size: the nearest entry, no tuning.
    const Choice& near = k.choice({{"rows", 2048}, {"cols", 2048}});
    CHECK(near.origin == "profile (nearest size: cols=3000 rows=2000)");
  }
  {
    const ScopedEnv no_tune("MEMTUNE_NO_TUNE", "1");
    TunedKernel<float*, const float*> k(session, d, nullptr, options);
    const Choice& c = k.choice(problem);
    CHECK(c.origin == "default");
    CHECK(c.rationale.find("MEMTUNE_NO_TUNE") != std::string::npos);
    run(k);
  }
  {
    const ScopedEnv pinned("MEMTUNE_CONFIG", R"({"TILE": 16, "ROWS": 4, "SMEM": "swizzle", "ORDER": "diagonal"})");
    TunedKernel<float*, const float*> k(session, d, &store, options);
    const Choice& c = k.choice(problem);
    CHECK(c.origin == "MEMTUNE_CONFIG");
    CHECK(c.formatted == "TILE=16 ROWS=4 SMEM=swizzle ORDER=diagonal");
    run(k);
  }
  {
    // A pinned value off its axis is the application's input error, never ignored.
    const ScopedEnv pinned("MEMTUNE_CONFIG", R"({"user_transpose": {"TILE": 7}})");
    TunedKernel<float*, const float*> k(session, d, &store, options);
    CHECK_THROWS_WITH_AS(k.choice(problem), doctest::Contains("MEMTUNE_CONFIG: field 'user_transpose.TILE': 7 is not a value"),
                         InputError);
  }
  CHECK(store.entries().size() == 1); // nothing else was tuned
  std::filesystem::remove(store_file);
}

TEST_CASE("launcher: a sweep's store: between two sizes the interpolated pick, chosen once per size") {
  Session session;
  const auto store_file =
      std::filesystem::temp_directory_path() / ("memtune-launcher-sweep-gpu-" + std::to_string(::getpid()) + ".json");
  std::filesystem::remove(store_file);
  ProfileStore store(store_file);
  const KernelDescription d = load_description(kExamples / "kernels/transpose/transpose.json");
  LauncherOptions options;
  options.tune = quick_options();
  options.tune.strategy = "random"; // the same seed proposes the same configurations at both sizes
  options.tune.budget = 6;
  // Two sizes tuned and saved as `memtune sweep` does (a launcher with a store
  // would take the first size's entry for the second, as the nearest size).
  for (const int size : {1024, 4096}) {
    const TuningResult tuned = tune(d, d.complete({{"rows", size}, {"cols", size}}), options.tune);
    REQUIRE(tuned.best());
    store.save(make_profile_entry(tuned));
  }
  REQUIRE(store.entries().size() == 2);
  options.allow_tuning = false;
  TunedKernel<float*, const float*> k(session, d, &store, options);
  const Problem mid{{"rows", 2000}, {"cols", 2100}};
  const Choice& first = k.choice(mid);
  CHECK(first.origin.find("profile (interpolated between cols=1024 rows=1024 and cols=4096 rows=4096") == 0);
  CHECK(first.origin.find("expected loss") != std::string::npos);
  // Later calls of this size take what the first chose: no store, no lookup.
  constexpr int kCalls = 10000;
  const auto start = std::chrono::steady_clock::now();
  int other = 0;
  for (int i = 0; i < kCalls; ++i) other += &k.choice(mid) != &first;
  const double per_call = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kCalls;
  MESSAGE("a later call's choice: " << per_call * 1e9 << " ns (the first's lookup: " << first.seconds.lookup * 1e6
                                    << " us)");
  CHECK(other == 0);
  CHECK(per_call < first.seconds.lookup);
  std::filesystem::remove(store_file);
}
