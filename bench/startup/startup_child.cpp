#include "startup_child.hpp"

#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include <fstream>
#include <optional>
#include <stdexcept>

namespace memtune::bench {
namespace {

// Milliseconds since the previous lap.
class Laps {
public:
  explicit Laps(std::int64_t start_ns) : last_(start_ns) {}
  double lap() {
    const std::int64_t now = monotonic_ns();
    const double ms = static_cast<double>(now - last_) / 1e6;
    last_ = now;
    return ms;
  }

private:
  std::int64_t last_;
};

Problem problem_of(const ChildOptions& o) {
  if (o.kernel == "filter") return {{"n", o.n}, {"taps", 21}};
  return {{"n", o.n}};
}

// The description as an application gets it: the catalogue's, or its own file.
const KernelDescription& description_of(const ChildOptions& o, std::optional<KernelDescription>& loaded) {
  if (o.kernel == "filter") return templates::filter_description();
  if (o.kernel != "dot") throw std::invalid_argument("unknown kernel '" + o.kernel + "' (filter or dot)");
  loaded = load_description(o.spec);
  return *loaded;
}

// Whether this process mapped NVRTC: a start-up from cached kernels needs none.
bool nvrtc_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libnvrtc") != std::string::npos) return true;
  return false;
}

// The choice, the application's buffers and the first launch of any kernel.
template <class Kernel, class Launch>
void choose_and_launch(ChildReport& r, Laps& laps, Kernel& kernel, const Problem& problem, std::size_t buffers,
                       std::size_t bytes, Launch launch) {
  const Choice& c = kernel.choice(problem);
  const double choice_ms = laps.lap();
  r.phases["lookup"] = c.seconds.lookup * 1e3;
  r.phases["load"] = c.seconds.load * 1e3;
  r.phases["prepare_rest"] = choice_ms - (c.seconds.lookup + c.seconds.load) * 1e3;
  r.origin = c.origin;
  r.config = c.formatted;

  // The application's own buffers and stream: its cost, not memtune's.
  std::vector<cuda::DeviceBuffer> device;
  for (std::size_t i = 0; i < buffers; ++i) device.emplace_back(bytes);
  cuda::Stream stream;
  r.phases["app_buffers"] = laps.lap();

  launch(stream.get(), device);
  stream.synchronize();
  r.phases["first_launch"] = laps.lap();
  r.nvrtc_loaded = nvrtc_mapped();
}

template <class T> T* as(const cuda::DeviceBuffer& b) { return reinterpret_cast<T*>(b.get()); }

ChildReport run_on_gpu(const ChildOptions& o, Laps& laps, bool tune) {
  ChildReport r;
  if (!cuda::driver_available()) throw DeviceRequired("no GPU: " + cuda::driver_unavailable_reason());
  const cuda::Context context(0);
  r.phases["driver_context"] = laps.lap();
  const Session session;
  r.phases["session"] = laps.lap();
  std::optional<KernelDescription> loaded;
  const KernelDescription& d = description_of(o, loaded);
  r.phases["description"] = laps.lap();

  ProfileStore store(o.store);
  LauncherOptions options;
  options.allow_tuning = tune; // timed runs never tune: a miss shows as origin "default"
  options.tune.strategy = "random";
  options.tune.budget = 12;
  const Problem problem = problem_of(o);
  const std::size_t bytes = static_cast<std::size_t>(o.n) * sizeof(float);
  if (o.kernel == "filter") {
    TunedKernel<const float*, float*> k(session, d, &store, options);
    k.set_constant("memtune_filter_taps", templates::random_filter_taps(21, 1));
    r.phases["launcher"] = laps.lap();
    choose_and_launch(r, laps, k, problem, 2, bytes, [&](CUstream s, const std::vector<cuda::DeviceBuffer>& b) {
      k(s, problem, as<const float>(b[0]), as<float>(b[1]));
    });
  } else {
    TunedKernel<const float*, const float*, float*> k(session, d, &store, options);
    r.phases["launcher"] = laps.lap();
    choose_and_launch(r, laps, k, problem, 3, bytes, [&](CUstream s, const std::vector<cuda::DeviceBuffer>& b) {
      k(s, problem, as<const float>(b[0]), as<const float>(b[1]), as<float>(b[2]));
    });
  }
  return r;
}

// The GPU the CPU-only runs pretend to be.
Target stand_in_target() { return load_targets().find("h100-sxm"); }

} // namespace

ChildReport prepare_store(const ChildOptions& o) {
  if (!o.cpu_only) {
    Laps laps(monotonic_ns());
    return run_on_gpu(o, laps, /*tune=*/true);
  }
  std::optional<KernelDescription> loaded;
  const KernelDescription& d = description_of(o, loaded);
  const Target target = stand_in_target();
  const Problem problem = d.complete(problem_of(o));
  const search::Config config = d.default_config(problem, target);
  ProfileEntry e;
  e.device = fingerprint(target);
  e.template_name = d.name;
  e.problem = problem;
  e.config = d.space(problem, target).config_to_json(config);
  e.mode = "modeled";
  e.rationale = "start-up benchmark (cpu-only): the default configuration";
  ProfileStore(o.store).save(e);
  const CompileCache cache(CompileCache::default_folder());
  const CompileResult compiled =
      compile_cached(d.compile_request(d.launch(config, problem, target), target.compute_capability()), &cache);
  if (!compiled.ok) throw std::runtime_error("the default configuration does not compile:\n" + compiled.log);
  ChildReport r;
  r.origin = "saved for the cpu-only runs";
  r.config = d.space(problem, target).format(config);
  return r;
}

ChildReport run_child(const ChildOptions& o, std::int64_t main_ns) {
  Laps laps(main_ns);
  ChildReport r;
  r.phases["exec_to_main"] = static_cast<double>(main_ns - o.t0_ns) / 1e6;
  (void)laps.lap(); // the benchmark's own argument parsing is not timed
  if (!o.cpu_only) {
    ChildReport g = run_on_gpu(o, laps, /*tune=*/false);
    g.phases["exec_to_main"] = r.phases["exec_to_main"];
    return g;
  }
  std::optional<KernelDescription> loaded;
  const KernelDescription& d = description_of(o, loaded);
  r.phases["description"] = laps.lap();
  const Target target = stand_in_target(); // from the catalogue: a GPU's driver query stands in for it
  r.phases["stand_in_target"] = laps.lap();
  const Problem problem = d.complete(problem_of(o));
  const ProfileStore store(o.store);
  LauncherOptions options;
  options.allow_tuning = false;
  const ConfigLookup found = look_up_config(d, problem, target, &store, options, LookupEnvironment::from_process());
  r.phases["lookup"] = laps.lap();
  const CompileCache cache(CompileCache::default_folder());
  const CompileResult compiled =
      compile_cached(d.compile_request(d.launch(found.config, problem, target), target.compute_capability()), &cache);
  r.phases["load"] = laps.lap();
  if (!compiled.from_cache) r.note = "compile cache MISS: the load phase compiled";
  r.origin = found.origin;
  r.config = d.space(problem, target).format(found.config);
  r.note += (r.note.empty() ? "" : "; ") + std::string("cpu-only: the load reads the CUBIN, nothing is loaded or launched");
  r.nvrtc_loaded = nvrtc_mapped();
  return r;
}

} // namespace memtune::bench
