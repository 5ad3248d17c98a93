// An application that embeds its own kernel (dot.cu, described by dot.json)
// and lets memtune pick the kernel's configuration at start-up: from its
// profile when it has an entry for this GPU and size, else by tuning within a
// budget (saved for the next start). It then computes the dot product of its
// own two vectors, twice, and checks the result.
//
//   memtune_dot_app [n] [profile.json] [dot.json]
//
// dot.json (and dot.cu beside it) are copied next to the executable at build
// time; a real application installs them with itself. MEMTUNE_CONFIG and
// MEMTUNE_NO_TUNE work as for every tuned kernel (tuned_kernel.hpp).
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include "../common/app_main.hpp"

#include <cfloat>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <vector>

namespace {

std::filesystem::path beside_executable(const char* name) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(name) : self.parent_path() / name;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int run(std::int64_t n, const std::string& profile, const std::filesystem::path& spec) {
  // The application's data: two positive signals (a block's share left out
  // would show as a relative error of 1/blocks, far above the tolerance).
  // The description first: a size outside its problem's range is refused
  // (naming n and the range) before the host vectors are allocated.
  const memtune::KernelDescription description = memtune::load_description(spec);
  (void)description.complete({{"n", n}});
  std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(1.0 + 0.5 * std::sin(i * 0.01));
    y[i] = static_cast<float>(0.5 + 0.25 * std::cos(i * 0.003));
  }

  memtune::Session session; // the local GPU
  memtune::ProfileStore store(profile);
  memtune::LauncherOptions options;
  options.tune.strategy = "random"; // a start-up budget, not the whole grid
  options.tune.budget = 30;
  memtune::TunedKernel<const float*, const float*, float*> dot(session, description, &store, options);

  const memtune::Problem problem{{"n", n}};
  const memtune::Choice& choice = dot.choice(problem);
  std::cout << "configuration (" << choice.origin << "): " << choice.formatted << "\nwhy: " << choice.rationale
            << "\n";

  const std::size_t bytes = x.size() * sizeof(float);
  memtune::cuda::DeviceBuffer dx(bytes), dy(bytes), dresult(sizeof(float));
  dx.upload(x.data(), bytes);
  dy.upload(y.data(), bytes);
  memtune::cuda::Stream stream;
  const auto* px = reinterpret_cast<const float*>(dx.get());
  const auto* py = reinterpret_cast<const float*>(dy.get());
  auto* presult = reinterpret_cast<float*>(dresult.get());

  const auto launch_start = std::chrono::steady_clock::now();
  dot(stream.get(), problem, px, py, presult);
  stream.synchronize();
  const double launch_ms = ms_since(launch_start);
  float first = 0, second = 0;
  dresult.download(&first, sizeof first);
  // Again: the kernel must have left its scratch (the block counter) ready.
  dot(stream.get(), problem, px, py, presult);
  stream.synchronize();
  dresult.download(&second, sizeof second);
  std::cout << "start-up: lookup " << choice.seconds.lookup * 1e3 << " ms, tuning " << choice.seconds.tuning * 1e3
            << " ms, module load " << choice.seconds.load * 1e3 << " ms, first launch + sync " << launch_ms << " ms\n";

  // An fp32 sum is within (additions along the longest chain) eps sum|x y|
  // of the exact one: a thread's share, the warp and block trees, and the
  // last block's pass over the partial sums.
  double exact = 0, magnitude = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    exact += static_cast<double>(x[i]) * y[i];
    magnitude += std::fabs(static_cast<double>(x[i]) * y[i]);
  }
  const std::int64_t threads = std::int64_t{choice.launch.grid.x} * choice.launch.block.x;
  const std::int64_t chain = (n + threads - 1) / threads + 4 + 10 + (choice.launch.grid.x + 31) / 32 + 5;
  const double tolerance = static_cast<double>(chain) * FLT_EPSILON * magnitude;
  const double error = std::fabs(first - exact);
  std::cout << "dot of " << n << " elements: " << first << " (exact " << exact << ", error " << error
            << ", tolerance " << tolerance << "); second launch " << (second == first ? "identical" : "DIFFERS")
            << "\n";
  return error <= tolerance && second == first ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  return examples::run_app("dot_app", [&] {
    return run(examples::count_argument(argc, argv, 1, std::int64_t{1} << 24, "n"),
               argc > 2 ? argv[2] : "dot_app.memtune.json",
               argc > 3 ? std::filesystem::path(argv[3]) : beside_executable("dot.json"));
  });
}
