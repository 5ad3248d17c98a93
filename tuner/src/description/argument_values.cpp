#include "argument_values.hpp"

#include "description_internal.hpp"
#include "fill.hpp"

#include <cstring>
#include <stdexcept>

namespace memtune::description_detail {

std::array<std::byte, 8> scalar_bytes(const KernelDescription& d, const ScalarArgument& scalar,
                                      const search::Config& env, const std::string& field) {
  std::array<std::byte, 8> bytes{};
  if (scalar.type == ElementType::f16 || scalar.type == ElementType::bf16) { // a half alpha: its 16 bits
    const double value = scalar.float_value ? *scalar.float_value
                                            : static_cast<double>(evaluate(d, scalar.value, env, field + ".value (" + scalar.name + ")"));
    store_lane(scalar.type, value, bytes.data());
    return bytes;
  }
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

std::int64_t buffer_offset(const KernelDescription& d, const search::Expr& offset, const search::Config& env,
                           const std::string& field) {
  const std::string name = field + ".offset";
  const std::int64_t n = evaluate(d, offset, env, name);
  if (n < 0) throw std::invalid_argument(name + " = " + offset.to_string() + " is " + std::to_string(n));
  return n;
}

std::int64_t reduced_count(const KernelDescription& d, const ReducedOutput& reduced, const search::Config& env,
                           std::int64_t available) {
  std::string field = "verify.reduce";
  for (std::size_t i = 0; i < d.verify.reduced.size(); ++i)
    if (&d.verify.reduced[i] == &reduced) field += "[" + std::to_string(i) + "]";
  field += ".count ('" + reduced.buffer + "')";
  const std::int64_t n = evaluate(d, reduced.count, env, field);
  if (n < 1 || n > available)
    throw std::invalid_argument(field + " = " + reduced.count.to_string() + " is " + std::to_string(n) + ": outside 1.." +
                                std::to_string(available) + ", the buffer's elements");
  return n;
}

} // namespace memtune::description_detail
