#include "host_check_library.hpp"

#include <dlfcn.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace memtune::description_detail {
namespace {

constexpr std::size_t kMessageBytes = 4096;

int role_code(BufferRole role) {
  switch (role) {
  case BufferRole::in: return MEMTUNE_ROLE_IN;
  case BufferRole::out: return MEMTUNE_ROLE_OUT;
  case BufferRole::inout: return MEMTUNE_ROLE_INOUT;
  case BufferRole::scratch: return MEMTUNE_ROLE_SCRATCH;
  }
  return MEMTUNE_ROLE_IN;
}

static_assert(static_cast<int>(ElementType::f16) == MEMTUNE_LANE_F16 &&
                  static_cast<int>(ElementType::bf16) == MEMTUNE_LANE_BF16 &&
                  static_cast<int>(ElementType::u64) == MEMTUNE_LANE_U64,
              "memtune_lane follows ElementType's lane values");

std::vector<memtune_named_value> named(const std::map<std::string, std::int64_t>& values) {
  std::vector<memtune_named_value> out;
  for (const auto& [name, value] : values) out.push_back({name.c_str(), static_cast<long long>(value)});
  return out;
}

} // namespace

HostCheckLibrary::HostCheckLibrary(const HostCheck& check, const std::string& origin) : name_(check.function) {
  handle_ = dlopen(check.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    throw std::invalid_argument(origin + ": field 'verify.library': cannot load " + check.library.string() + ": " +
                                (why ? why : "unknown reason"));
  }
  dlerror();
  void* symbol = dlsym(handle_, check.function.c_str());
  if (!symbol) {
    const char* why = dlerror();
    dlclose(handle_);
    handle_ = nullptr;
    throw std::invalid_argument(origin + ": field 'verify.function': " + check.library.string() + " has no function '" +
                                check.function + "' (" + (why ? why : "null symbol") +
                                "; declare it extern \"C\" in C++, see memtune/description/host_check.h)");
  }
  function_ = reinterpret_cast<memtune_host_check_fn>(symbol);
}

HostCheckLibrary::HostCheckLibrary(memtune_host_check_fn function, std::string name)
    : function_(function), name_(std::move(name)) {}

HostCheckLibrary::~HostCheckLibrary() {
  if (handle_) dlclose(handle_);
}

HostCheckLibrary::HostCheckLibrary(HostCheckLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), function_(std::exchange(other.function_, nullptr)),
      name_(std::move(other.name_)) {}

HostCheckLibrary& HostCheckLibrary::operator=(HostCheckLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    function_ = std::exchange(other.function_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

Verification HostCheckLibrary::run(const Problem& problem, const search::Config& config,
                                   std::span<const HostBufferView> buffers) const {
  const std::vector<memtune_named_value> problem_values = named(problem);
  const std::vector<memtune_named_value> config_values = named(config.values());
  std::vector<std::string> type_names;
  type_names.reserve(buffers.size());
  std::vector<memtune_buffer_view> views;
  for (const HostBufferView& b : buffers) {
    const ElementType type = b.spec->type;
    type_names.emplace_back(to_string(type));
    const std::size_t needed = static_cast<std::size_t>(b.offset + b.count) * element_size(type);
    if (b.bytes.size() < needed)
      throw std::logic_error("host check: '" + b.spec->name + "' has " + std::to_string(b.bytes.size()) +
                             " bytes, its view needs " + std::to_string(needed));
    views.push_back({b.spec->name.c_str(), type_names.back().c_str(), static_cast<int>(lane_type(type)), lane_count(type),
                     role_code(b.spec->role), b.bytes.data(), static_cast<long long>(b.offset),
                     static_cast<long long>(b.count), element_size(type)});
  }
  std::vector<char> message(kMessageBytes, '\0');
  const memtune_check_input input{MEMTUNE_HOST_CHECK_ABI,
                                  problem_values.data(), static_cast<int>(problem_values.size()),
                                  config_values.data(),  static_cast<int>(config_values.size()),
                                  views.data(),          static_cast<int>(views.size()),
                                  message.data(),        message.size()};
  const int verdict = function_(&input);
  message.back() = '\0'; // a function that filled the whole buffer
  const std::string text = message.data();
  Verification v;
  v.ok = verdict == 1;
  if (verdict == 1) {
    v.note = text;
    return v;
  }
  v.bad_count = 1;
  v.max_abs_error = INFINITY;
  v.note = verdict == 0 ? "the host check '" + name_ + "' failed" + (text.empty() ? "" : ": " + text)
                        : "the host check '" + name_ + "' could not run for this configuration (it returned " +
                              std::to_string(verdict) + ")" + (text.empty() ? "" : ": " + text);
  return v;
}

} // namespace memtune::description_detail
