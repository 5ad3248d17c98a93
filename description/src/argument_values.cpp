#include <memtune/description/argument_values.hpp>

#include <memtune/description/description_json.hpp>

#include <memtune/description/description_internal.hpp>
#include <memtune/description/fill.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <stdexcept>

namespace memtune::description_detail {

namespace {

template <class V>
std::string value_text(V v) {
  if constexpr (std::is_integral_v<V>) return std::to_string(v);
  else {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }
}

// `value` as a T, or std::invalid_argument: a C type's range, not a wrap.
template <class T, class V>
T in_range(V value, const std::string& what, ElementType type) {
  if constexpr (std::is_integral_v<T>) {
    bool fits = false;
    if constexpr (std::is_integral_v<V>) fits = std::in_range<T>(value);
    else
      fits = std::isfinite(value) && value == std::trunc(value) &&
             value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
             value < std::ldexp(1.0, std::numeric_limits<T>::digits); // 2^digits: exactly the first value past max
    if (!fits)
      throw std::invalid_argument(what + " is " + value_text(value) + ", which does not fit in " + to_string(type) +
                                  " (" + std::to_string(std::numeric_limits<T>::lowest()) + " to " +
                                  std::to_string(std::numeric_limits<T>::max()) + ")");
    return static_cast<T>(value);
  } else {
    if (!std::isfinite(static_cast<double>(value)) ||
        std::fabs(static_cast<double>(value)) > static_cast<double>(std::numeric_limits<T>::max()))
      throw std::invalid_argument(what + " is " + value_text(value) + ", which does not fit in " + to_string(type));
    return static_cast<T>(value);
  }
}

} // namespace

std::array<std::byte, 8> scalar_bytes(const KernelDescription& d, const ScalarArgument& scalar,
                                      const search::Config& env, const std::string& field) {
  std::array<std::byte, 8> bytes{};
  const std::string what = field + ".value (" + std::string(to_string(scalar.type)) + " " + scalar.name + ")";
  if (scalar.type == ElementType::f16 || scalar.type == ElementType::bf16) { // a half alpha: its 16 bits
    const double value = scalar.float_value ? *scalar.float_value
                                            : static_cast<double>(evaluate(d, scalar.value, env, what));
    store_lane(scalar.type, value, bytes.data());
    return bytes;
  }
  with_element_type(scalar.type, [&](auto zero) {
    using T = decltype(zero);
    T value;
    if (scalar.float_value) value = in_range<T>(*scalar.float_value, what, scalar.type);
    else value = in_range<T>(evaluate(d, scalar.value, env, what), what, scalar.type);
    std::memcpy(bytes.data(), &value, sizeof value);
  });
  return bytes;
}

std::int64_t buffer_count(const KernelDescription& d, const BufferArgument& buffer, const search::Config& env,
                          const std::string& field) {
  const std::string name = field + ".count (" + buffer.name + ")";
  const std::int64_t n = evaluate(d, buffer.count, env, name);
  if (n < 0)
    throw std::invalid_argument(name + " = " + clipped(buffer.count.to_string()) + " is " + std::to_string(n) +
                                ": a buffer has at least 0 elements");
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<std::int64_t>(element_size(buffer.type)), &bytes))
    throw std::invalid_argument(name + " = " + std::to_string(n) + " elements of " + to_string(buffer.type) +
                                ": more bytes than 64-bit sizes hold");
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

void check_arguments(const KernelDescription& d, const Problem& problem, const Target& target) {
  const search::Config env = environment(d, nullptr, problem, &target);
  for (std::size_t i = 0; i < d.arguments.size(); ++i) {
    const std::string field = "arguments[" + std::to_string(i) + "]";
    try {
      if (const auto* scalar = std::get_if<ScalarArgument>(&d.arguments[i])) {
        if (scalar->float_value || !reads_parameter(d, scalar->value)) (void)scalar_bytes(d, *scalar, env, field);
      } else if (const auto* buffer = std::get_if<BufferArgument>(&d.arguments[i])) {
        if (!reads_parameter(d, buffer->count)) (void)buffer_count(d, *buffer, env, field);
      }
    } catch (const std::invalid_argument& e) {
      throw DescriptionError(origin_of(d), field, e.what());
    }
  }
}

} // namespace memtune::description_detail
