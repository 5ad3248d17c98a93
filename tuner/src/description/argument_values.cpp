#include "argument_values.hpp"

#include "description_internal.hpp"
#include "fill.hpp"

#include <cstring>
#include <stdexcept>

namespace memtune::description_detail {

std::array<std::byte, 8> scalar_bytes(const KernelDescription& d, const ScalarArgument& scalar,
                                      const search::Config& env, const std::string& field) {
  std::array<std::byte, 8> bytes{};
  with_element_type(scalar.type, [&](auto zero) {
    using T = decltype(zero);
    T value;
    if (scalar.float_value) value = static_cast<T>(*scalar.float_value);
    else value = static_cast<T>(evaluate(d, scalar.value, env, field + ".value (" + scalar.name + ")"));
    std::memcpy(bytes.data(), &value, sizeof value);
  });
  return bytes;
}

std::int64_t buffer_count(const KernelDescription& d, const BufferArgument& buffer, const search::Config& env,
                          const std::string& field) {
  const std::string name = field + ".count (" + buffer.name + ")";
  const std::int64_t n = evaluate(d, buffer.count, env, name);
  if (n < 0) throw std::invalid_argument(name + " = " + buffer.count.to_string() + " is " + std::to_string(n));
  return n;
}

} // namespace memtune::description_detail
