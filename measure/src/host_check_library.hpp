#pragma once
// Internal: a verification function from a shared library
// (VerifySpec::Mode::host_check): loading it, and marshalling one launch's
// problem, configuration and host buffers into the C ABI of
// memtune/description/host_check.h.
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/host_check.h>
#include <memtune/description/verification.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace memtune::description_detail {

// One buffer argument's host copy: offset + count elements from the allocation's start.
struct HostBufferView {
  const BufferArgument* spec = nullptr;
  std::span<const std::byte> bytes;
  std::int64_t offset = 0; // [elements] in front of the kernel's pointer
  std::int64_t count = 0;  // [elements] from the kernel's pointer
};

class HostCheckLibrary {
public:
  // dlopen + dlsym. Throws std::invalid_argument naming the description, the
  // field and the loader's reason when the library or the function is missing.
  HostCheckLibrary(const HostCheck& check, const std::string& origin);
  // A function already in hand (tests, and a library loaded elsewhere).
  HostCheckLibrary(memtune_host_check_fn function, std::string name);
  ~HostCheckLibrary();
  HostCheckLibrary(HostCheckLibrary&& other) noexcept;
  HostCheckLibrary& operator=(HostCheckLibrary&& other) noexcept;
  HostCheckLibrary(const HostCheckLibrary&) = delete;
  HostCheckLibrary& operator=(const HostCheckLibrary&) = delete;

  // Calls the function. 1: ok; 0: failed, the message in the note; negative:
  // the check could not run, failed with a note that says so (never ok).
  [[nodiscard]] Verification run(const Problem& problem, const search::Config& config,
                                 std::span<const HostBufferView> buffers) const;

private:
  void* handle_ = nullptr;
  memtune_host_check_fn function_ = nullptr;
  std::string name_; // the function's name, for messages
};

} // namespace memtune::description_detail
