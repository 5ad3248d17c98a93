#pragma once
// Launching a tuned kernel from the application, on its own buffers and stream.
//
//   memtune::Session session;                                   // the local GPU
//   memtune::ProfileStore store{"app.memtune.json"};
//   memtune::TunedKernel<const float*, float*> fir(session, memtune::templates::filter_description(), &store);
//   fir.set_constant("memtune_filter_taps", my_taps);           // the application's coefficients
//   fir(stream, {{"n", n}, {"taps", 21}}, d_in, d_out);         // the caller's buffers, in argument order
//   std::cout << fir.choice({{"n", n}, {"taps", 21}}).rationale;
//
// The caller passes, in the description's order, every buffer argument except
// scratch buffers (the handle owns those: matvec's split-K workspace and its
// counters), and the scalars marked from_caller; memtune computes the other
// scalars (sizes, pitches) from the problem and the configuration. The types
// are checked against the description once, at construction
// (std::invalid_argument naming the argument): a buffer is `T*` or `const T*`
// (an `in` buffer may be const; `out`, `inout` may not), or `CUdeviceptr`
// (any element type); a scalar is exactly its type (`int` for int32, `float`).
// CUdeviceptr is `unsigned long long`: pass a uint64 scalar as std::uint64_t.
//
// At the first launch of a problem the configuration comes from, in order
// (config_lookup.hpp): MEMTUNE_CONFIG (pinned), the profile entry for this
// GPU and problem, the entry of the nearest problem size (log scale) on this
// GPU, the entry of the same GPU model (same name and compute capability) at
// the nearest size, tuning within LauncherOptions::tune (unless
// MEMTUNE_NO_TUNE=1 or allow_tuning is false; the result is saved), and last
// the description's default configuration. The module comes from the compile
// cache. Each problem keeps its configuration, module and scratch buffers
// (zeroed once, at allocation, as before a verified launch while tuning)
// until the handle is destroyed; later launches only enqueue the kernel.
//
// The handle refers to the Session, which must outlive it. Not thread-safe:
// one per thread, or lock around it. Launches make the session's context
// (the primary context, the CUDA runtime's too) current on the calling thread.
#include <memtune/launch/config_lookup.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/launch/session.hpp>

#include <cuda.h>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace memtune {

// The type of one argument the caller passes.
struct CallerArgumentType {
  bool buffer = false;         // a device pointer
  bool any_element = false;    // CUdeviceptr: element type not checked
  bool is_const = false;       // `const T*`
  ElementType type = ElementType::f32;
  [[nodiscard]] std::string to_string() const; // "const float*", "CUdeviceptr", "int"
  friend bool operator==(const CallerArgumentType&, const CallerArgumentType&) = default;
};

template <class T> constexpr CallerArgumentType caller_argument_type() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, CUdeviceptr>) return {true, true, false, ElementType::u8};
  else if constexpr (std::is_pointer_v<U>)
    return {true, false, std::is_const_v<std::remove_pointer_t<U>>, element_type_of<U>()};
  else return {false, false, false, element_type_of<U>()};
}

// One argument the caller passes, as the description declares it.
struct CallerParameter {
  std::string name;            // the description's argument name
  std::size_t argument = 0;    // its index among the description's (and the kernel's) arguments
  CallerArgumentType type;     // what to pass: `const T*` for an in buffer, `T*` for out and inout, a scalar's type
  BufferRole role = BufferRole::in; // buffers only
};

// What the caller passes, in order: non-scratch buffers and from_caller scalars.
[[nodiscard]] std::vector<CallerParameter> caller_parameters(const KernelDescription& description);
// "(const float* in, float* out)"
[[nodiscard]] std::string format_caller_parameters(const std::vector<CallerParameter>& parameters);
// Throws std::invalid_argument naming the first argument whose type does not
// match (or the counts, listing what the description takes).
void check_caller_signature(const KernelDescription& description, std::span<const CallerArgumentType> given);

// The untyped launcher behind TunedKernel.
class KernelLauncher {
public:
  // `store` may be null: no profile lookup, nothing saved.
  KernelLauncher(const Session& session, KernelDescription description, ProfileStore* store,
                 LauncherOptions options = {});
  ~KernelLauncher();
  KernelLauncher(KernelLauncher&&) noexcept;
  KernelLauncher& operator=(KernelLauncher&&) noexcept;
  KernelLauncher(const KernelLauncher&) = delete;
  KernelLauncher& operator=(const KernelLauncher&) = delete;

  // What the caller passes, in order (see above).
  [[nodiscard]] const std::vector<CallerParameter>& caller_parameters() const;
  // Throws std::invalid_argument naming the first argument whose type does not match.
  void check_signature(std::span<const CallerArgumentType> types) const;

  // The configuration for a problem (looked up, tuned or defaulted once, then
  // kept), compiled and loaded, its scratch allocated. Throws
  // std::invalid_argument for a problem out of the description's ranges.
  const Choice& choice(const Problem& problem);
  // Enqueues the kernel on `stream`; args[i] points at the caller's i-th
  // argument. Throws std::invalid_argument for a null buffer the kernel
  // reads or writes, a buffer not aligned to LauncherOptions::buffer_alignment,
  // or a from_caller constant not set yet; cuda::DriverError when the launch fails.
  void launch(CUstream stream, const Problem& problem, std::span<void* const> args);
  // The values of a from_caller __constant__ symbol, applied to every module
  // loaded now or later (throws std::invalid_argument for an unknown symbol,
  // one memtune fills, or a size that does not match a loaded module's).
  // Synchronous, like cudaMemcpyToSymbol: call it between launches.
  void set_constant(const std::string& symbol, std::span<const std::byte> values);

  [[nodiscard]] const KernelDescription& description() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

template <class... Args> class TunedKernel {
public:
  TunedKernel(const Session& session, KernelDescription description, ProfileStore* store, LauncherOptions options = {})
      : launcher_(session, std::move(description), store, std::move(options)) {
    const std::array<CallerArgumentType, sizeof...(Args)> types{caller_argument_type<Args>()...};
    launcher_.check_signature(types);
  }

  void operator()(CUstream stream, const Problem& problem, Args... args) {
    std::array<void*, sizeof...(Args)> pointers{const_cast<void*>(static_cast<const void*>(&args))...};
    launcher_.launch(stream, problem, pointers);
  }

  template <class T> void set_constant(const std::string& symbol, std::span<const T> values) {
    launcher_.set_constant(symbol, std::as_bytes(values));
  }
  template <class T> void set_constant(const std::string& symbol, const std::vector<T>& values) {
    set_constant(symbol, std::span<const T>(values));
  }

  const Choice& choice(const Problem& problem) { return launcher_.choice(problem); }
  KernelLauncher& launcher() { return launcher_; }

private:
  KernelLauncher launcher_;
};

} // namespace memtune
