// The application's launcher of a described kernel (tuned_kernel.hpp): per
// problem, a configuration chosen once (Session::tune_or_load), its module,
// the scratch buffers it needs and the arguments memtune computes; per launch,
// the caller's arguments slotted in and one cuLaunchKernel.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/launch.hpp>
#include <memtune/launch/tuned_kernel.hpp>

#include <memtune/description/argument_values.hpp>
#include <memtune/description/description_internal.hpp>
#include <memtune/description/fill.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace memtune {

using namespace description_detail;

namespace {

CUdeviceptr symbol_address(const Choice& choice, const KernelDescription& d, const std::string& symbol,
                           std::size_t* bytes) {
  CUdeviceptr address = 0;
  const CUresult found = cuda::driver_api().cuModuleGetGlobal(&address, bytes, choice.module->get(), symbol.c_str());
  if (found == CUDA_ERROR_NOT_FOUND)
    throw std::invalid_argument(d.name + ": the module has no symbol '" + symbol +
                                "' (declare it __constant__ at namespace scope with that name)");
  MEMTUNE_CU(found);
  return address;
}

std::string constant_size_error(const KernelDescription& d, const std::string& symbol, std::size_t module_bytes,
                                std::size_t given_bytes, const Choice& choice) {
  return d.name + ": the symbol '" + symbol + "' has " + std::to_string(module_bytes) + " bytes in the module of " +
         choice.formatted + ", but set_constant gave " + std::to_string(given_bytes);
}

std::string hex(CUdeviceptr address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

} // namespace

struct KernelLauncher::State {
  // Everything a launch of one problem needs besides the caller's arguments.
  struct Prepared {
    Choice choice;
    std::vector<std::array<std::byte, 8>> values; // per description argument: a computed scalar or a scratch pointer
    std::vector<cuda::DeviceBuffer> scratch;
    std::vector<std::int64_t> counts;             // per description argument: a buffer's elements
    std::vector<void*> params;                    // per description argument, for cuLaunchKernel
    std::vector<std::string> unset_constants;     // from_caller symbols not given yet
  };

  const Session* session = nullptr;
  KernelDescription d;
  ProfileStore* store = nullptr;
  LauncherOptions options;
  std::vector<CallerParameter> caller;
  std::map<std::string, std::vector<std::byte>> constants; // set_constant's values by symbol
  std::map<Problem, std::unique_ptr<Prepared>> prepared;   // by the problem as completed
  Problem last_given;                                      // launches repeat one problem: skip complete()
  Prepared* last = nullptr;

  Prepared& prepare(const Problem& given);
  void fill_constants(Prepared& p, const Problem& problem);
};

KernelLauncher::State::Prepared& KernelLauncher::State::prepare(const Problem& given) {
  if (last && given == last_given) return *last;
  const Problem problem = d.complete(given);
  auto it = prepared.find(problem);
  if (it == prepared.end()) {
    auto p = std::make_unique<Prepared>();
    p->choice = session->tune_or_load(d, problem, store, options);
    const search::Config env = d.environment(p->choice.config, problem, session->target());
    const std::size_t n = d.arguments.size();
    p->values.assign(n, {});
    p->counts.assign(n, 0);
    p->params.assign(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string field = "arguments[" + std::to_string(i) + "]";
      if (const auto* s = std::get_if<ScalarArgument>(&d.arguments[i])) {
        if (!s->from_caller) {
          p->values[i] = scalar_bytes(d, *s, env, field);
          p->params[i] = p->values[i].data();
        }
        continue;
      }
      const auto& b = std::get<BufferArgument>(d.arguments[i]);
      p->counts[i] = buffer_count(d, b, env, field);
      if (b.role != BufferRole::scratch) continue;
      // Zero once, as a verified launch while tuning saw it; the kernel
      // leaves it as the next launch needs it (matvec's counters back at 0).
      cuda::DeviceBuffer& buffer = p->scratch.emplace_back(static_cast<std::size_t>(p->counts[i]) * element_size(b.type));
      buffer.fill_u8(0);
      const CUdeviceptr address = buffer.get();
      std::memcpy(p->values[i].data(), &address, sizeof address);
      p->params[i] = p->values[i].data();
    }
    if (!p->scratch.empty()) MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(nullptr));
    fill_constants(*p, problem);
    it = prepared.emplace(problem, std::move(p)).first;
  }
  last_given = given;
  last = it->second.get();
  return *last;
}

void KernelLauncher::State::fill_constants(Prepared& p, const Problem& problem) {
  // memtune's own constants get the data tuning used: the i-th filled item
  // (in and inout buffers in argument order, then constants) takes seed + i.
  std::uint64_t item = 0;
  for (const auto& a : d.arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a); b && (b->role == BufferRole::in || b->role == BufferRole::inout))
      ++item;
  const search::Config env = d.environment(p.choice.config, problem, session->target());
  for (std::size_t i = 0; i < d.constants.size(); ++i, ++item) {
    const ConstantSymbol& c = d.constants[i];
    std::size_t bytes = 0;
    const CUdeviceptr address = symbol_address(p.choice, d, c.symbol, &bytes);
    if (c.from_caller) {
      const auto given = constants.find(c.symbol);
      if (given == constants.end()) {
        p.unset_constants.push_back(c.symbol);
        continue;
      }
      if (given->second.size() != bytes)
        throw std::invalid_argument(constant_size_error(d, c.symbol, bytes, given->second.size(), p.choice));
      MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(address, given->second.data(), bytes));
      continue;
    }
    search::Config fill_config;
    for (const auto& axis : c.fill.depends_on)
      if (p.choice.config.has(axis)) fill_config.set(axis, p.choice.config.at(axis));
    const std::int64_t count = evaluate(d, c.count, env, "constants[" + std::to_string(i) + "].count");
    const std::vector<std::byte> host = fill_host(c.fill, c.type, count, {problem, fill_config, options.tune.seed + item});
    if (host.size() != bytes)
      throw std::invalid_argument(d.name + ": the symbol '" + c.symbol + "' has " + std::to_string(bytes) +
                                  " bytes in the module, but constants[" + std::to_string(i) + "] gives " +
                                  std::to_string(host.size()));
    if (bytes) MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(address, host.data(), bytes));
  }
}

KernelLauncher::KernelLauncher(const Session& session, KernelDescription description, ProfileStore* store,
                               LauncherOptions options)
    : state_(std::make_unique<State>()) {
  state_->session = &session;
  state_->d = std::move(description);
  state_->store = store;
  state_->options = std::move(options);
  state_->caller = memtune::caller_parameters(state_->d);
}

KernelLauncher::~KernelLauncher() {
  // Modules and scratch belong to the session's context: make it current
  // for their release when the handle dies on another thread.
  if (!state_ || state_->prepared.empty()) return;
  try {
    state_->session->make_current();
  } catch (const std::exception&) {
    // Their release then logs the driver's error; a destructor never throws.
  }
}
KernelLauncher::KernelLauncher(KernelLauncher&&) noexcept = default;
KernelLauncher& KernelLauncher::operator=(KernelLauncher&&) noexcept = default;

const std::vector<CallerParameter>& KernelLauncher::caller_parameters() const { return state_->caller; }

void KernelLauncher::check_signature(std::span<const CallerArgumentType> types) const {
  check_caller_signature(state_->d, types);
}

const KernelDescription& KernelLauncher::description() const { return state_->d; }

const Choice& KernelLauncher::choice(const Problem& problem) {
  state_->session->make_current();
  return state_->prepare(problem).choice;
}

void KernelLauncher::launch(CUstream stream, const Problem& problem, std::span<void* const> args) {
  State& s = *state_;
  s.session->make_current();
  State::Prepared& p = s.prepare(problem);
  if (args.size() != s.caller.size())
    throw std::invalid_argument(s.d.name + ": launch given " + std::to_string(args.size()) + " arguments, the caller's are " +
                                format_caller_parameters(s.caller));
  if (!p.unset_constants.empty())
    throw std::invalid_argument(s.d.name + ": the constant '" + p.unset_constants.front() +
                                "' comes from the application: call set_constant(\"" + p.unset_constants.front() +
                                "\", values) before launching");
  for (std::size_t k = 0; k < args.size(); ++k) {
    const CallerParameter& c = s.caller[k];
    p.params[c.argument] = args[k];
    if (!c.type.buffer) continue;
    CUdeviceptr address = 0;
    std::memcpy(&address, args[k], sizeof address);
    if (address == 0 && p.counts[c.argument] > 0)
      throw std::invalid_argument(s.d.name + ": argument " + std::to_string(k) + " ('" + c.name + "') is null, but the kernel " +
                                  (c.role == BufferRole::in ? "reads " : "writes ") + std::to_string(p.counts[c.argument]) +
                                  " elements of it");
    if (s.options.buffer_alignment > 1 && address % s.options.buffer_alignment != 0)
      throw std::invalid_argument(s.d.name + ": argument " + std::to_string(k) + " ('" + c.name + "') at " + hex(address) +
                                  " is not " + std::to_string(s.options.buffer_alignment) +
                                  "-byte aligned (LauncherOptions::buffer_alignment): the configuration may use "
                                  "vector accesses");
  }
  const LaunchSpec& l = p.choice.launch;
  cuda::launch_kernel(p.choice.function, l, stream, p.params.data());
}

void KernelLauncher::set_constant(const std::string& symbol, std::span<const std::byte> values) {
  State& s = *state_;
  const ConstantSymbol* c = nullptr;
  std::string known;
  for (const ConstantSymbol& k : s.d.constants) {
    if (k.symbol == symbol) c = &k;
    if (k.from_caller) known += (known.empty() ? "" : ", ") + k.symbol;
  }
  if (!c || !c->from_caller)
    throw std::invalid_argument(s.d.name + ": '" + symbol + "' is not a constant the application sets" +
                                (c ? " (memtune fills it: from_caller is false)" : "") +
                                (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
  if (values.size() % element_size(c->type) != 0)
    throw std::invalid_argument(s.d.name + ": set_constant(\"" + symbol + "\") given " + std::to_string(values.size()) +
                                " bytes, not a whole number of " + to_string(c->type));
  s.session->make_current();
  // Every loaded module must take the values before any changes.
  std::vector<std::pair<CUdeviceptr, State::Prepared*>> targets;
  for (auto& [_, p] : s.prepared) {
    std::size_t bytes = 0;
    const CUdeviceptr address = symbol_address(p->choice, s.d, symbol, &bytes);
    if (bytes != values.size())
      throw std::invalid_argument(constant_size_error(s.d, symbol, bytes, values.size(), p->choice));
    targets.emplace_back(address, p.get());
  }
  for (auto& [address, p] : targets) {
    if (!values.empty()) MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(address, values.data(), values.size()));
    std::erase(p->unset_constants, symbol);
  }
  s.constants[symbol].assign(values.begin(), values.end());
}

} // namespace memtune
