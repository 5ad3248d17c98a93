// memtune_sanitize_runner: every configuration (or a seeded sample) of a
// built-in template launched once on a poisoned output and verified, with no
// timing: what compute-sanitizer runs under (scripts/sanitize_templates.sh).
// A tuning run would launch each candidate a dozen times more to time it,
// which under a sanitizer costs minutes and finds nothing new.
//   memtune_sanitize_runner TEMPLATE [--set NAME=VALUE ...] [--only AXIS=VALUE ...] [--sample N] [--seed S]
// --only keeps the configurations with these axis values (as memtune's
// --only), e.g. a new kernel variant alone under the slower tools.
// Prints one line per configuration and a summary; exit 0 when every
// launched configuration verified, 1 otherwise, 2 on bad arguments.
#include "option_checks.hpp"
#include <memtune/measure/reference_run.hpp>
#include <memtune/tune/search_loop.hpp>

#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/measure/workload.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/catalogue.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace memtune;

namespace {

int sanitize(const KernelDescription& d, const Problem& problem, const std::map<std::string, std::string>& only,
             std::size_t sample, std::uint64_t seed) {
  const cuda::DriverApi& cu = cuda::driver_api();
  cuda::Context context(0);
  const Target target = with_catalogue_figures(local_target(0));
  const int cc = target.compute_capability();
  const CompileCache cache(CompileCache::default_folder());
  search::Space space = d.space(problem, target);
  fix_axes(space, only); // memtune's --only: the same constraints and errors
  std::vector<search::Config> configs = space.enumerate();
  const std::size_t whole = configs.size();
  if (sample > 0 && sample < configs.size()) {
    const search::Config fallback = d.default_config(problem, target);
    std::mt19937_64 random(seed);
    std::shuffle(configs.begin(), configs.end(), random);
    configs.resize(sample);
    if (std::find(configs.begin(), configs.end(), fallback) == configs.end()) configs.back() = fallback;
  }

  DescribedWorkload workload(d, problem, target, seed);
  workload.upload({cc, &cache});
  cuda::Stream stream;
  if (auto why = run_reference(d, problem, target, workload, &cache, stream.get())) {
    std::printf("sanitize %s: no reference: %s\n", d.name.c_str(), why->c_str());
    return 1;
  }
  std::map<std::string, int> counts;
  for (const search::Config& config : configs) {
    std::string status = "ok", detail;
    try {
      const LaunchSpec l = d.launch(config, problem, target);
      const CompileResult compiled = compile_cached(d.compile_request(l, cc), &cache);
      if (!compiled.ok) throw std::invalid_argument("does not compile");
      const auto threads = static_cast<long long>(l.block.count());
      if (compiled.resources.registers * threads > target.max_regs_per_block ||
          compiled.resources.static_smem_bytes + l.dynamic_smem_bytes > target.smem_per_block_optin)
        throw std::invalid_argument("exceeds the GPU's limits");
      cuda::Module module(compiled.cubin);
      CUfunction fn = module.function(compiled.lowered_name);
      if (l.dynamic_smem_bytes > 48 * 1024)
        MEMTUNE_CU(cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(l.dynamic_smem_bytes)));
      int blocks = 0;
      MEMTUNE_CU(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, static_cast<int>(threads), l.dynamic_smem_bytes));
      if (blocks == 0) throw std::invalid_argument("no block fits on an SM");
      std::vector<void*> args = workload.kernel_args(config);
      workload.prepare(module.get(), config);
      workload.poison(stream.get());
      MEMTUNE_CU(cu.cuLaunchKernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                                   static_cast<unsigned>(l.dynamic_smem_bytes), stream.get(), args.data(), nullptr));
      const Verification v = workload.verify(stream.get());
      if (!v.ok) {
        status = "wrong";
        detail = std::to_string(v.bad_count) + " wrong" + (v.note.empty() ? "" : "; " + v.note);
      }
    } catch (const std::invalid_argument& e) {
      status = "skipped";
      detail = e.what();
    } catch (const cuda::DriverError& e) {
      status = "failed";
      detail = e.what();
      if (e.is_sticky()) {
        std::printf("sanitize %s %s: failed: %s (the context is lost: stopping)\n", d.name.c_str(),
                    space.format(config).c_str(), e.what());
        return 1;
      }
    }
    ++counts[status];
    std::printf("sanitize %s %s: %s%s\n", d.name.c_str(), space.format(config).c_str(), status.c_str(),
                detail.empty() ? "" : (": " + detail).c_str());
  }
  std::string restriction; // --only's, in its syntax
  for (const auto& [axis, value] : only) restriction += (restriction.empty() ? "" : ",") + axis + "=" + value;
  const std::string how = std::string(configs.size() == whole ? "the whole space" : "a seeded sample") +
                          (restriction.empty() ? "" : ", --only " + restriction);
  std::printf("sanitize-summary %s %s: %zu of %zu configurations (%s), ok %d, wrong %d, failed %d, skipped %d\n",
              d.name.c_str(), format_problem(problem, d.problem).c_str(), configs.size(), whole, how.c_str(),
              counts["ok"], counts["wrong"], counts["failed"], counts["skipped"]);
  return counts["wrong"] + counts["failed"] == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: memtune_sanitize_runner TEMPLATE [--set NAME=VALUE ...] [--only AXIS=VALUE ...] [--sample N] "
                 "[--seed S]\n");
    return 2;
  }
  return run_reporting_errors("memtune_sanitize_runner", std::cerr, [&] {
    const KernelDescription& d = templates::find_description(argv[1]);
    std::map<std::string, std::optional<std::string>> typed;
    std::vector<std::string> only;
    std::size_t sample = 0;
    std::uint64_t seed = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
      const std::string flag = argv[i], value = argv[i + 1];
      if (flag == "--sample") sample = std::stoul(value);
      else if (flag == "--seed") seed = std::stoull(value);
      else if (flag == "--set" && value.find('=') != std::string::npos)
        typed[value.substr(0, value.find('='))] = value.substr(value.find('=') + 1);
      else if (flag == "--only") only.push_back(value); // "a=1,b=2": parse_only splits it
      else throw ArgumentError(flag, "unknown argument");
    }
    return sanitize(d, cli::parse_problem(d, typed, cli::ProblemSyntax::kSet), cli::parse_only(only), sample, seed);
  });
}
