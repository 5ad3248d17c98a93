// memtune_compile_bench: where the time of `memtune tune --spec` goes, per
// candidate, for kernels that include CUDA headers.
//
//   compile   cold: every candidate compiled through the compile pool (all
//             cores, fresh cache folder): wall, the sum of the compiles' own
//             times, and how many cores that kept busy (sum / wall);
//   overhead  warm: memtune's own time per candidate with every compile a
//             cache hit: the launch and request built from the description,
//             the cache key (with the include scan) and the entry read;
//   measure   --gpu only: a grid tune of the same candidates on the local GPU
//             with the warm cache; every run of the kernel is the measure
//             part: the timed samples, the warm-up launches and the launch
//             whose output is verified, each at the candidate's median (so a
//             20 ms kernel costs 60 ms beyond its samples, which is the
//             kernel's time, not memtune's). A second tune of one candidate
//             gives the run's set-up (worker start, inputs, reference, copy
//             ceiling), which a run pays once whatever its size; the rest of
//             the wall, spread over the other candidates, is memtune's
//             overhead per measured candidate (module load, poison, the
//             outputs' download and comparison, flushes, refills and
//             synchronisation).
//
// Without a GPU it reports compile and overhead for sm_90 (the H100's
// architecture). Usage:
//   memtune_compile_bench [--spec k.json]... [--candidates 200] [--threads 0] [--gpu]
#include <memtune/compile/compile_pool.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/tune/tuner.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

fs::path fresh_folder(const std::string& tag) {
  const fs::path p = fs::temp_directory_path() / ("memtune-compile-bench-" + tag + "-" + std::to_string(std::random_device{}()));
  fs::remove_all(p);
  return p;
}

struct Split {
  std::string name;
  std::size_t candidates = 0;
  std::size_t failed = 0;
  std::string compiler;
  double cold_wall = 0, cold_sum = 0; // [seconds]
  double warm_wall = 0;               // [seconds]
  double tune_wall = 0, measure = 0;  // [seconds], --gpu: every candidate
  double setup = 0;                   // [seconds], --gpu: the run's own cost, paid once
  double per_candidate = 0;           // [seconds], --gpu: overhead per further candidate
};

Split run_one(const fs::path& spec, std::size_t limit, unsigned threads, bool gpu) {
  Split s;
  const KernelDescription kernel = load_description(spec);
  s.name = kernel.name;
  const Problem problem = kernel.complete({});
  const Target target = gpu ? resolve_target("local").target : load_targets().find("h100");
  const int cc = target.compute_capability();
  const search::Space space = kernel.space(problem, target);
  std::vector<search::Config> configs;
  for (std::size_t i = 0; i < space.cross_product_size() && configs.size() < limit; ++i)
    if (search::Config c = space.at_index(i); space.is_valid(c)) configs.push_back(std::move(c));
  s.candidates = configs.size();

  const fs::path cache_folder = fresh_folder("cache");
  const CompileCache cache(cache_folder);
  const auto compile_all = [&](bool cold) {
    CompilePool pool(&cache, threads);
    const double start = now();
    std::vector<std::future<CompileResult>> futures;
    for (const auto& c : configs) futures.push_back(pool.submit(kernel.compile_request(kernel.launch(c, problem, target), cc)));
    for (auto& f : futures) {
      const CompileResult r = f.get();
      if (cold) {
        s.cold_sum += r.seconds;
        s.failed += r.ok ? 0 : 1;
        if (s.compiler.empty()) s.compiler = r.compiler;
      }
    }
    return now() - start;
  };
  s.cold_wall = compile_all(true);
  s.warm_wall = compile_all(false);

  if (gpu) {
    // Wall and kernel time of a warm-cache grid tune of the first `budget` candidates.
    const auto tune_first = [&](std::size_t budget) {
      TuneOptions options;
      options.strategy = "grid";
      options.budget = budget;
      options.cache_folder = cache_folder;
      const double start = now();
      const TuningResult r = tune(kernel, problem, options);
      const double wall = now() - start;
      // The kernel's runs: its samples, the timer's warm-ups and the verified launch before them.
      const double untimed_runs = static_cast<double>(options.measure.warmup) + 1.0;
      double measured = 0;
      for (const auto& e : r.evaluations)
        if (e.timing) measured += e.timing->median_s * (static_cast<double>(e.timing->samples) + untimed_runs);
      return std::pair{wall, measured};
    };
    std::tie(s.tune_wall, s.measure) = tune_first(limit);
    const auto [one_wall, one_measure] = tune_first(1);
    if (configs.size() > 1) {
      // Both runs pay the set-up once; what the larger pays beyond is its further candidates'.
      s.per_candidate = std::max(0.0, (s.tune_wall - s.measure) - (one_wall - one_measure)) /
                        static_cast<double>(configs.size() - 1);
      s.setup = std::max(0.0, one_wall - one_measure - s.per_candidate);
    } else {
      s.setup = one_wall - one_measure;
    }
  }
  fs::remove_all(cache_folder);
  return s;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"memtune_compile_bench: compile / measure / overhead per candidate of --spec kernels"};
  std::vector<std::string> specs;
  std::size_t candidates = 200;
  unsigned threads = 0;
  bool gpu = false;
  app.add_option("--spec", specs, "kernel descriptions (default: examples/kernels/* and bench/compile/cg_scale.json)");
  app.add_option("--candidates", candidates, "candidates per kernel, the first valid ones of the grid")->check(CLI::Range(1, 100000));
  app.add_option("--threads", threads, "compile threads (0: all hardware threads)");
  app.add_flag("--gpu", gpu, "also tune the candidates on the local GPU (the measure split)");
  CLI11_PARSE(app, argc, argv);
  if (specs.empty())
    for (const char* s : {"examples/kernels/transpose/transpose.json", "examples/kernels/stencil/stencil.json",
                          "examples/kernels/histogram/histogram.json", "bench/compile/cg_scale.json"})
      specs.push_back(std::string(MEMTUNE_SOURCE_DIR) + "/" + s);
  const unsigned cores = threads ? threads : std::max(1U, std::thread::hardware_concurrency());
  std::printf("compile threads: %u\n", cores);
  std::printf("%-18s %5s %-10s %10s %10s %7s %9s %11s %11s %8s %8s\n", "kernel", "cands", "compiler", "cold s", "cand/s",
              "cores", "warm ms", "measure ms", "overhead ms", "setup s", "tune s");
  int status = 0;
  for (const auto& spec : specs) {
    try {
      const Split s = run_one(spec, candidates, threads, gpu);
      const double n = static_cast<double>(s.candidates);
      const std::string compiler = s.compiler.substr(0, s.compiler.find(' '));
      if (gpu)
        std::printf("%-18s %5zu %-10s %10.2f %10.2f %7.2f %9.2f %11.2f %11.2f %8.2f %8.2f\n", s.name.c_str(), s.candidates,
                    compiler.c_str(), s.cold_wall, n / s.cold_wall, s.cold_sum / s.cold_wall, 1e3 * s.warm_wall / n,
                    1e3 * s.measure / n, 1e3 * s.per_candidate, s.setup, s.tune_wall);
      else
        std::printf("%-18s %5zu %-10s %10.2f %10.2f %7.2f %9.2f %11s %11s %8s %8s\n", s.name.c_str(), s.candidates,
                    compiler.c_str(), s.cold_wall, n / s.cold_wall, s.cold_sum / s.cold_wall, 1e3 * s.warm_wall / n, "-",
                    "-", "-", "-");
      if (s.failed) std::printf("  %zu candidates did not compile\n", s.failed);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", spec.c_str(), e.what());
      status = 1;
    }
  }
  std::printf("cold s: wall of compiling every candidate; cores: the compiles' own seconds / that wall; warm ms: "
              "memtune's part per candidate on a warm cache (launch, request, key, read)%s\n",
              gpu ? "; measure ms: the kernel's runs (samples, warm-ups and the verified launch, each at the median); overhead ms: the rest of the tune's wall "
                    "per candidate beyond the first; setup s: the run's own cost, paid once (a one-candidate tune less "
                    "its candidate); tune s: the whole grid's wall"
                  : "");
  return status;
}
