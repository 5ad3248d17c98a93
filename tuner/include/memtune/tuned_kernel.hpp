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
// (any element type); a scalar is its arithmetic type.
//
// At the first launch of a problem the configuration comes from, in order:
// MEMTUNE_CONFIG (pinned), the profile entry for this GPU and problem, the
// entry of the nearest problem size (log scale) on this GPU, the entry of the
// same GPU model (same name and compute capability) at the nearest size,
// tuning within LauncherOptions::tune (unless MEMTUNE_NO_TUNE=1 or
// allow_tuning is false; the result is saved), and last the description's
// default configuration. The module comes from the compile cache.
#include <memtune/description/kernel_description.hpp>
#include <memtune/profile_store.hpp>
#include <memtune/session.hpp>
#include <memtune/tuner.hpp>

#include <cuda.h>

#include <array>
#include <type_traits>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace memtune {

struct LauncherOptions {
  TuneOptions tune;          // what tuning at start-up may spend (e.g. strategy "bayes", budget 40)
  bool allow_tuning = true;  // false: never tune (as MEMTUNE_NO_TUNE=1)
  bool save = true;          // save a tuned result in the store
};

// The type of one argument the caller passes.
struct CallerArgumentType {
  bool buffer = false;         // a device pointer
  bool any_element = false;    // CUdeviceptr: element type not checked
  bool is_const = false;       // `const T*`
  ElementType type = ElementType::f32;
  [[nodiscard]] std::string to_string() const; // "const float*", "CUdeviceptr", "int32"
};

template <class T> constexpr CallerArgumentType caller_argument_type() {
  if constexpr (std::is_same_v<std::remove_cvref_t<T>, CUdeviceptr>) return {true, true, false, ElementType::u8};
  else if constexpr (std::is_pointer_v<std::remove_cvref_t<T>>)
    return {true, false, std::is_const_v<std::remove_pointer_t<std::remove_cvref_t<T>>>, element_type_of<T>()};
  else return {false, false, false, element_type_of<T>()};
}

// The untyped launcher behind TunedKernel. Not thread-safe: one per thread, or lock around it.
class KernelLauncher {
public:
  KernelLauncher(const Session& session, KernelDescription description, ProfileStore* store,
                 LauncherOptions options = {});
  ~KernelLauncher();
  KernelLauncher(KernelLauncher&&) noexcept;
  KernelLauncher& operator=(KernelLauncher&&) noexcept;
  KernelLauncher(const KernelLauncher&) = delete;
  KernelLauncher& operator=(const KernelLauncher&) = delete;

  // What the caller passes, in order (see above).
  [[nodiscard]] std::vector<CallerArgumentType> caller_signature() const;
  // Throws std::invalid_argument naming the first argument whose type does not match.
  void check_signature(std::span<const CallerArgumentType> types) const;

  // The configuration for a problem (looked up, tuned or defaulted once, then cached), compiled and loaded.
  const Choice& choice(const Problem& problem);
  // Enqueues the kernel on `stream`; args[i] points at the caller's i-th argument.
  void launch(CUstream stream, const Problem& problem, std::span<void* const> args);
  // The values of a from_caller __constant__ symbol, applied to every module
  // loaded now or later (throws std::invalid_argument for an unknown symbol or a size that does not match).
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
