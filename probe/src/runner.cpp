#include <memtune/io/utc_time.hpp>
#include <memtune/compile/compile_cache.hpp>
#include <memtune/measure/copy_ceiling.hpp>
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/probe/chase.hpp>
#include <memtune/probe/coalescing.hpp>
#include <memtune/probe/runner.hpp>
#include <memtune/description/random_data.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <stdexcept>

namespace memtune::probe::embedded {
extern const char probes_cu[];
} // namespace memtune::probe::embedded

namespace memtune::probe {

const char* probe_source() { return embedded::probes_cu; }

namespace {

constexpr unsigned kNaN = 0x7FC00000U; // poison for float outputs
constexpr int kL2ReadThreads = 256;            // per block of probe_l2_read (its __launch_bounds__)
constexpr std::size_t kL2ReadTarget = 1 << 30; // [bytes] read per launch by default: >= ~100 us on any GPU up to ~10 TB/s
constexpr int kMaxL2ReadPasses = 1 << 20;
constexpr int kLaunchThreads = 32;             // per block of probe_empty_block
constexpr std::int64_t kMaxLaunchBlocks = std::int64_t{1} << 28;
constexpr unsigned kUntouched = 0x5EED5EEDU;   // what probe_empty_block's output holds unless a block stores

std::string today_utc() { return utc_now("%Y-%m-%d"); }

// One compiled probe kernel.
struct Kernel {
  cuda::Module module;
  CUfunction function = nullptr;
};

class Probes {
public:
  Probes(const ProbeOptions& o, std::ostream& progress)
      : o_(o), progress_(progress), context_(o.device), target_(local_target(o.device)), cu_(cuda::driver_api()) {
    if (o.cache_folder) cache_.emplace(*o.cache_folder);
    if (o.launches == 0) {
      timer_.emplace(target_.l2_bytes, o.measure);
      MeasureOptions warm = o.measure;
      warm.flush_l2 = false;
      warm_timer_.emplace(target_.l2_bytes, warm);
    }
  }

  ProbeReport run() {
    ProbeReport r;
    r.target = target_;
    r.device = fingerprint(target_);
    r.date = today_utc();
    r.cold = o_.measure.flush_l2;
    // A hint the driver may clamp; what it reports is what the coalescing
    // model uses for the bytes a scattered read fetches from DRAM.
    std::size_t fetch = 0;
    if (cu_.cuCtxGetLimit(&fetch, CU_LIMIT_MAX_L2_FETCH_GRANULARITY) == CUDA_SUCCESS) r.l2_fetch_bytes = fetch;
    if (selected(o_.only, "copy") && o_.launches == 0) r.copy = copy_probe();
    if (selected(o_.only, "offset") || selected(o_.only, "stride")) r.coalescing = coalescing_probe();
    if (selected(o_.only, "bank")) r.banks = bank_probe();
    if (selected(o_.only, "latency")) r.latency = latency_probe();
    if (selected(o_.only, "l2")) r.l2_read = l2_read_probe();
    if (selected(o_.only, "launch")) r.launch = launch_probe();
    return r;
  }

private:
  const Kernel& kernel(const std::string& name) {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return it->second;
    CompileRequest req;
    req.source = probe_source();
    req.source_name = "probes.cu";
    req.name_expression = name;
    req.compute_capability = target_.compute_capability();
    const CompileResult c = compile_cached(req, cache_ ? &*cache_ : nullptr);
    if (!c.ok) throw std::runtime_error("probe kernel " + name + " does not compile for " + target_.arch() + ":\n" + c.log);
    Kernel k;
    k.module = cuda::Module(c.cubin);
    k.function = k.module.function(c.lowered_name);
    return kernels_.emplace(name, std::move(k)).first->second;
  }

  void launch(const Kernel& k, unsigned grid, unsigned block, CUstream stream, void** args, unsigned block_y = 1) const {
    MEMTUNE_CU(cu_.cuLaunchKernel(k.function, grid, 1, 1, block, block_y, 1, 0, stream, args, nullptr));
  }

  // Synchronous uploads from pageable memory may return before their DMA
  // lands, and the probes' streams do not synchronise with the legacy stream:
  // wait for the whole context before launching on uploaded data.
  void uploads_done() const { context_.synchronize(); }

  // Timed (the Timer's protocol) or exactly o_.launches untimed launches.
  // keep_l2: time with warm_timer_, which never flushes L2, even in cold mode.
  std::optional<Timing> run_launches(const std::function<void(CUstream)>& l, bool keep_l2 = false) {
    if (timer_) {
      Timer& timer = keep_l2 ? *warm_timer_ : *timer_;
      const Timing t = timer.time(l);
      MEMTUNE_CU(cu_.cuStreamSynchronize(timer.stream()));
      return t;
    }
    for (int i = 0; i < o_.launches; ++i) l(stream_.get());
    stream_.synchronize();
    return std::nullopt;
  }

  // The stream run_launches(.., keep_l2) launches on.
  CUstream stream(bool keep_l2 = false) const {
    if (!timer_) return stream_.get();
    return keep_l2 ? warm_timer_->stream() : timer_->stream();
  }

  // Uploads `count` random floats (fill_random, never zeros) to ptr, in chunks.
  void upload_random(CUdeviceptr ptr, std::size_t count, std::uint64_t seed) const {
    constexpr std::size_t chunk = std::size_t{1} << 24;
    std::vector<float> host(std::min(count, chunk));
    for (std::size_t off = 0, k = 0; off < count; off += chunk, ++k) {
      const std::size_t m = std::min(chunk, count - off);
      fill_random(std::span<float>(host.data(), m), seed * 1000003ULL + k);
      MEMTUNE_CU(cu_.cuMemcpyHtoD(ptr + off * sizeof(float), host.data(), m * sizeof(float)));
    }
  }

  CopyProbe copy_probe() {
    CopyProbe p;
    p.bytes = o_.copy_bytes ? o_.copy_bytes : std::max<std::size_t>(std::size_t{256} << 20, 4 * target_.l2_bytes);
    p.bytes = std::max<std::size_t>(p.bytes / 16 * 16, 16);
    progress_ << "probe: copy, " << p.bytes << " bytes\n";
    p.memcpy = measure_copy_ceiling(*timer_, p.bytes);

    const std::size_t floats = p.bytes / sizeof(float);
    std::vector<float> in(floats);
    fill_random(in, o_.seed);
    cuda::DeviceBuffer d_in(p.bytes), d_out(p.bytes);
    d_in.upload(in.data(), p.bytes);
    uploads_done();
    d_out.fill_u32(kNaN, stream());
    const Kernel& k = kernel("probe_copy_float4");
    CUdeviceptr a = d_in.get(), b = d_out.get();
    unsigned long long n4 = p.bytes / 16;
    void* args[] = {&a, &b, &n4};
    const auto grid = static_cast<unsigned>(std::min<unsigned long long>((n4 + 255) / 256, 0x7FFFFFFFULL));
    p.float4_timing = *run_launches([&](CUstream s) { launch(k, grid, 256, s, args); });
    p.float4_gbs = 2.0 * static_cast<double>(p.bytes) / p.float4_timing.median_s / 1e9;
    std::vector<float> out(floats);
    d_out.download(out.data(), p.bytes);
    p.float4_verified = std::memcmp(in.data(), out.data(), p.bytes) == 0;
    return p;
  }

  // Runs the offset or stride kernel with parameter s on n elements of a small
  // fresh array and checks every element (touched ones + 1, others unchanged).
  bool verify_coalescing(const Kernel& k, bool is_offset, int s) {
    const std::uint64_t n = 4096 + 7; // not a multiple of the block: the bounds check matters
    const std::size_t count = static_cast<std::size_t>(n) * 33;
    std::vector<float> host(count);
    fill_random(host, o_.seed + 17 + static_cast<std::uint64_t>(s));
    cuda::DeviceBuffer d(count * sizeof(float));
    d.upload(host.data(), count * sizeof(float));
    uploads_done();
    CUdeviceptr ptr = d.get();
    int s_arg = s;
    unsigned long long n_arg = n;
    void* args[] = {&ptr, &s_arg, &n_arg};
    launch(k, static_cast<unsigned>((n + coalescing_block_threads - 1) / coalescing_block_threads), coalescing_block_threads, stream(), args);
    MEMTUNE_CU(cu_.cuStreamSynchronize(stream()));
    std::vector<float> got(count);
    d.download(got.data(), count * sizeof(float));
    std::vector<float> want = host;
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto j = static_cast<std::size_t>(coalescing_element(is_offset ? Coalescing::offset : Coalescing::stride, s, i));
      want[j] = host[j] + 1.0f;
    }
    return std::memcmp(want.data(), got.data(), count * sizeof(float)) == 0;
  }

  CoalescingProbe coalescing_probe() {
    CoalescingProbe p;
    std::size_t free_b = 0, total_b = 0;
    MEMTUNE_CU(cu_.cuMemGetInfo(&free_b, &total_b));
    std::uint64_t n = o_.coalescing_n ? o_.coalescing_n : std::uint64_t{32} << 20;
    // The array holds n * 33 floats (the article's layout); use at most a quarter of free memory.
    const std::uint64_t fit = free_b / 4 / (33 * sizeof(float));
    if (!o_.coalescing_n) n = std::min(n, fit);
    n = std::max<std::uint64_t>(n / 256 * 256, 256);
    p.n = n;
    const std::size_t count = static_cast<std::size_t>(n) * 33;
    cuda::DeviceBuffer a(count * sizeof(float));
    upload_random(a.get(), count, o_.seed + 5);
    uploads_done();
    progress_ << "probe: coalescing, n = " << n << " (" << count * sizeof(float) << " bytes allocated)\n";

    for (bool is_offset : {true, false}) {
      const std::string name = is_offset ? "offset" : "stride";
      const Kernel& k = kernel(is_offset ? "probe_offset" : "probe_stride");
      for (int s = is_offset ? 0 : 1; s <= (is_offset ? coalescing_max_offset : coalescing_max_stride); ++s) {
        if (!selected(o_.only, name, std::to_string(s))) continue;
        CurvePoint pt;
        pt.parameter = s;
        CUdeviceptr ptr = a.get();
        int s_arg = s;
        unsigned long long n_arg = n;
        void* args[] = {&ptr, &s_arg, &n_arg};
        pt.timing = run_launches([&](CUstream st) { launch(k, static_cast<unsigned>(n / coalescing_block_threads), coalescing_block_threads, st, args); });
        if (pt.timing) pt.gbs = 2.0 * static_cast<double>(n) * 4.0 / pt.timing->median_s / 1e9;
        pt.verified = verify_coalescing(k, is_offset, s);
        (is_offset ? p.offset : p.stride).push_back(pt);
      }
    }
    return p;
  }

  std::vector<BankResult> bank_probe() {
    std::vector<BankResult> out;
    const int blocks = o_.bank_blocks > 0 ? o_.bank_blocks : 32 * target_.sm_count;
    const std::size_t in_count = static_cast<std::size_t>(blocks) * bank_tile_elems;
    const std::size_t out_count = static_cast<std::size_t>(blocks) * bank_block_threads;
    std::vector<float> in(in_count);
    fill_random(in, o_.seed + 9);
    cuda::DeviceBuffer d_in(in_count * sizeof(float)), d_out(out_count * sizeof(float));
    d_in.upload(in.data(), in_count * sizeof(float));
    uploads_done();
    std::vector<float> got(out_count);
    for (const BankVariant& v : bank_variants()) {
      if (!selected(o_.only, "bank", v.name)) continue;
      progress_ << "probe: bank " << v.name << " (" << v.kernel << ")\n";
      BankResult r;
      r.variant = v;
      r.reps = o_.bank_reps;
      r.blocks = blocks;
      r.per_block = simulate_bank_variant(v, o_.bank_reps);
      const Kernel& k = kernel(v.kernel);
      d_out.fill_u32(kNaN, stream());
      CUdeviceptr a = d_in.get(), b = d_out.get();
      int reps = static_cast<int>(o_.bank_reps);
      void* args[] = {&a, &b, &reps};
      int launches = 0;
      r.timing = run_launches([&](CUstream s) {
        launch(k, static_cast<unsigned>(blocks), 16, s, args, 16); // a 16 x 16 block, as in the 2008 example
        ++launches;
      });
      r.launches = launches;
      d_out.download(got.data(), out_count * sizeof(float));
      r.verified = true;
      for (int blk = 0; blk < blocks && r.verified; ++blk)
        for (int tid = 0; tid < bank_block_threads; ++tid) {
          const int warp = tid / 32, lane = tid % 32;
          const float x = in[static_cast<std::size_t>(blk) * bank_tile_elems +
                             static_cast<std::size_t>(lane * v.stride + warp)];
          // The kernel sums the same value reps times: reps * x up to rounding.
          const double want = static_cast<double>(o_.bank_reps) * static_cast<double>(x);
          const double g = got[static_cast<std::size_t>(blk) * bank_block_threads + static_cast<std::size_t>(tid)];
          // Float accumulation of reps equal values: at most ~one rounding per add.
          const double rel = 1e-4 + static_cast<double>(o_.bank_reps) * 1.2e-7;
          if (!(std::abs(g - want) <= rel * std::abs(want) + 1e-6)) {
            r.verified = false;
            break;
          }
        }
      out.push_back(r);
    }
    return out;
  }

  std::vector<LatencyResult> latency_probe() {
    std::vector<LatencyResult> out;
    const Kernel& k = kernel("probe_pointer_chase");
    for (const std::string level : {"dram", "l2"}) {
      if (!selected(o_.only, "latency", level)) continue;
      LatencyResult r;
      r.level = level;
      r.stride_bytes = o_.chase_stride;
      r.bytes = level == "dram" ? (o_.dram_chase_bytes ? o_.dram_chase_bytes
                                                       : std::max<std::size_t>(std::size_t{256} << 20, 8 * target_.l2_bytes))
                                : (o_.l2_chase_bytes ? o_.l2_chase_bytes : target_.l2_bytes / 4);
      const ChaseBuffer buf = make_chase_buffer(r.bytes, r.stride_bytes, o_.seed + (level == "dram" ? 1 : 2));
      r.bytes = buf.slots * buf.stride_bytes;
      // DRAM: never revisit a slot within a launch (a revisit could hit in L2).
      // L2: one untimed lap loads every slot into L2, then laps are timed.
      const long long warm = level == "dram" ? 0 : static_cast<long long>(buf.slots);
      long long steps = level == "dram" ? std::min<long long>(o_.chase_steps, static_cast<long long>(buf.slots) - 1)
                                        : o_.chase_steps;
      r.steps = steps;
      progress_ << "probe: latency " << level << ", " << r.bytes << " bytes, " << steps << " dependent loads\n";
      cuda::DeviceBuffer d_next(buf.next.size() * sizeof(std::uint32_t));
      d_next.upload(buf.next.data(), buf.next.size() * sizeof(std::uint32_t));
      uploads_done();
      cuda::DeviceBuffer d_result(3 * sizeof(unsigned long long));
      d_result.fill_u32(0, stream());
      CUdeviceptr next = d_next.get(), result = d_result.get();
      unsigned start = buf.start;
      long long warm_arg = warm;
      void* args[] = {&next, &start, &warm_arg, &steps, &result};
      run_launches([&](CUstream s) { launch(k, 1, 1, s, args); });
      unsigned long long res[3] = {};
      d_result.download(res, sizeof res);
      r.launches = static_cast<int>(res[2]);
      r.ns_per_load = res[2] > 0 && steps > 0 ? static_cast<double>(res[1]) / static_cast<double>(res[2]) /
                                                    static_cast<double>(steps)
                                              : 0.0;
      r.verified = res[2] > 0 && res[0] == chase(buf, buf.start, steps);
      out.push_back(r);
    }
    return out;
  }

  L2BandwidthResult l2_read_probe() {
    L2BandwidthResult r;
    r.bytes = o_.l2_read_bytes ? o_.l2_read_bytes : target_.l2_bytes / 4;
    r.bytes = std::max<std::size_t>(r.bytes / 16 * 16, 16);
    const std::size_t n4 = r.bytes / 16;
    r.passes = o_.l2_read_passes > 0
                   ? o_.l2_read_passes
                   : static_cast<int>(std::min<std::size_t>((kL2ReadTarget + r.bytes - 1) / r.bytes, kMaxL2ReadPasses));
    r.threads = kL2ReadThreads;
    r.blocks = target_.sm_count * std::max(1, target_.max_threads_per_sm / kL2ReadThreads);
    progress_ << "probe: l2 read, " << r.bytes << " bytes x " << r.passes << " passes, " << r.blocks << " blocks of "
              << r.threads << " threads\n";

    // Small integers 1..7 (never zero): every partial sum is exact in float
    // below 2^24, so the CPU knows each thread's sum.
    std::vector<float> in(n4 * 4);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(k % 7 + 1);
    const std::size_t threads = static_cast<std::size_t>(r.blocks) * static_cast<std::size_t>(r.threads);
    cuda::DeviceBuffer d_in(r.bytes), d_out(threads * sizeof(float));
    d_in.upload(in.data(), r.bytes);
    uploads_done();
    d_out.fill_u32(kNaN, stream(true));
    const Kernel& k = kernel("probe_l2_read");
    CUdeviceptr a = d_in.get(), b = d_out.get();
    unsigned long long n4_arg = n4;
    int passes = r.passes;
    void* args[] = {&a, &n4_arg, &passes, &b};
    int launches = 0;
    auto go = [&](CUstream s) {
      launch(k, static_cast<unsigned>(r.blocks), static_cast<unsigned>(r.threads), s, args);
      ++launches;
    };
    // The point is an L2-resident buffer: one untimed launch brings it into
    // L2, and the samples are timed with warm_timer_, which never flushes L2
    // (not even in cold mode, where every other probe's samples start from DRAM).
    if (timer_) go(stream(true));
    r.timing = run_launches(go, /*keep_l2=*/true);
    r.launches = launches;
    if (r.timing) r.gbs = static_cast<double>(r.passes) * static_cast<double>(r.bytes) / r.timing->median_s / 1e9;

    std::vector<float> got(threads);
    d_out.download(got.data(), threads * sizeof(float));
    r.verified = true;
    for (std::size_t t = 0; t < threads && r.verified; ++t) {
      double per_pass = 0;
      std::size_t loads = 0;
      for (std::size_t i = t; i < n4; i += threads, ++loads)
        per_pass += static_cast<double>(in[4 * i] + in[4 * i + 1] + in[4 * i + 2] + in[4 * i + 3]);
      const double want = per_pass * r.passes;
      // Exact while each float4 component's sum stays below 2^24; beyond, about one rounding per add.
      const double tol = (1e-6 + static_cast<double>(loads) * r.passes * 1.2e-7) * want;
      r.verified = std::abs(static_cast<double>(got[t]) - want) <= tol;
    }
    return r;
  }

  LaunchRateProbe launch_probe() {
    LaunchRateProbe p;
    p.threads = kLaunchThreads;
    const std::int64_t largest = o_.launch_blocks;
    progress_ << "probe: launch, empty blocks of " << p.threads << " threads, up to " << largest << " blocks\n";
    const auto count = static_cast<std::size_t>(largest);
    cuda::DeviceBuffer d_out(count * sizeof(unsigned));
    d_out.fill_u32(kUntouched, stream(true));
    const Kernel& k = kernel("probe_empty_block");
    CUdeviceptr out = d_out.get();
    int flag = 0;
    void* args[] = {&flag, &out};
    for (const std::int64_t blocks : {largest / 64, largest / 16, largest / 4, largest}) {
      LaunchPoint pt;
      pt.blocks = blocks;
      // No memory traffic: timed without the L2 flush, which would only add idle time between samples.
      pt.timing = run_launches([&](CUstream s) { launch(k, static_cast<unsigned>(blocks), static_cast<unsigned>(p.threads), s, args); },
                               /*keep_l2=*/true);
      if (pt.timing) pt.ns_per_block = pt.timing->median_s * 1e9 / static_cast<double>(blocks);
      p.points.push_back(pt);
    }
    p.block_launch_ns = fitted_block_launch_ns(p.points);

    // The launches above (flag = 0) stored nothing; one more with flag = 12345
    // stores 1 from every block of the largest grid: every block ran the body.
    std::vector<unsigned> got(count);
    d_out.download(got.data(), count * sizeof(unsigned));
    const bool untouched = std::all_of(got.begin(), got.end(), [](unsigned v) { return v == kUntouched; });
    flag = 12345;
    launch(k, static_cast<unsigned>(largest), static_cast<unsigned>(p.threads), stream(true), args);
    MEMTUNE_CU(cu_.cuStreamSynchronize(stream(true)));
    d_out.download(got.data(), count * sizeof(unsigned));
    const bool all_stored = std::all_of(got.begin(), got.end(), [](unsigned v) { return v == 1U; });
    p.verified = untouched && all_stored;
    return p;
  }

  const ProbeOptions& o_;
  std::ostream& progress_;
  cuda::Context context_;
  Target target_;
  const cuda::DriverApi& cu_;
  std::optional<CompileCache> cache_;
  std::optional<Timer> timer_;
  std::optional<Timer> warm_timer_; // never flushes L2: for the L2 read and launch probes
  cuda::Stream stream_;
  std::map<std::string, Kernel> kernels_;
};

} // namespace

void check_options(const ProbeOptions& options) {
  check_selectors(options.only);
  if (options.launches < 0) throw std::invalid_argument("--launches must be >= 0");
  if (options.bank_reps < 1 || options.bank_reps > (1 << 20)) throw std::invalid_argument("--bank-reps must be 1..2^20");
  if (options.bank_blocks < 0) throw std::invalid_argument("--bank-blocks must be >= 0");
  if (options.chase_stride < 128 || options.chase_stride % 4 != 0)
    throw std::invalid_argument("--chase-stride must be a multiple of 4 bytes and >= 128 (one slot per cache line)");
  if (options.chase_steps < 1) throw std::invalid_argument("--chase-steps must be >= 1");
  if (options.l2_read_passes < 0 || options.l2_read_passes > kMaxL2ReadPasses)
    throw std::invalid_argument("--l2-read-passes must be 0 (automatic) .. 2^20");
  if (options.launch_blocks < 64 || options.launch_blocks > kMaxLaunchBlocks)
    throw std::invalid_argument("--launch-blocks must be 64..2^28 (the largest of four grids: / 64, / 16, / 4, x 1)");
}

ProbeReport run_probes(const ProbeOptions& options, std::ostream& progress) {
  check_options(options);
  Probes p(options, progress);
  return p.run();
}

} // namespace memtune::probe
