#include <memtune/description/argument_values.hpp>

#include <memtune/description/description_json.hpp>

#include <memtune/description/description_internal.hpp>
#include <memtune/description/fill.hpp>

#include <climits>
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
    if (const auto why = representable_violation(value, scalar.type)) throw std::invalid_argument(what + ": " + *why);
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
  if (n < 0)
    throw std::invalid_argument(name + " = " + clipped(offset.to_string()) + " is " + std::to_string(n) +
                                ": an offset is at least 0 (the elements in front of the kernel's pointer)");
  return n;
}

std::int64_t buffer_elements(const KernelDescription& d, const BufferArgument& buffer, const search::Config& env,
                             const std::string& field) {
  const std::int64_t offset = buffer_offset(d, buffer.offset, env, field);
  const std::int64_t count = buffer_count(d, buffer, env, field);
  std::int64_t n = 0, bytes = 0;
  if (__builtin_add_overflow(offset, count, &n) ||
      __builtin_mul_overflow(n, static_cast<std::int64_t>(element_size(buffer.type)), &bytes))
    throw std::invalid_argument(field + ".offset (" + buffer.name + ") = " + std::to_string(offset) + " and count " +
                                std::to_string(count) + " elements of " + to_string(buffer.type) +
                                ": more bytes than 64-bit sizes hold");
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

std::uint64_t check_arguments(const KernelDescription& d, const Problem& problem, const Target& target) {
  const search::Config env = problem_environment(d, problem, &target);
  std::uint64_t allocated = 0;
  for (std::size_t i = 0; i < d.arguments.size(); ++i) {
    const std::string field = "arguments[" + std::to_string(i) + "]";
    try {
      if (const auto* scalar = std::get_if<ScalarArgument>(&d.arguments[i])) {
        if (scalar->float_value || !reads_parameter(d, scalar->value)) (void)scalar_bytes(d, *scalar, env, field);
      } else if (const auto* buffer = std::get_if<BufferArgument>(&d.arguments[i])) {
        const bool count_known = !reads_parameter(d, buffer->count), offset_known = !reads_parameter(d, buffer->offset);
        if (count_known && offset_known) {
          const std::uint64_t bytes = static_cast<std::uint64_t>(buffer_elements(d, *buffer, env, field)) *
                                      element_size(buffer->type); // fits: buffer_elements checks
          if (__builtin_add_overflow(allocated, bytes, &allocated))
            throw std::invalid_argument(field + " (" + buffer->name + "): the buffers' bytes together do not fit in 64 bits");
        } else if (count_known) {
          (void)buffer_count(d, *buffer, env, field);
        } else if (offset_known) {
          (void)buffer_offset(d, buffer->offset, env, field);
        }
      }
    } catch (const std::invalid_argument& e) {
      throw DescriptionError(origin_of(d), field, e.what());
    }
  }
  return allocated;
}

unsigned launch_dimension(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                          const std::string& field, bool grid, std::size_t axis) {
  // CUDA's limits since compute capability 3.0: a grid of 2^31-1 blocks in x
  // and 65535 in y and z. A block's are the device's (block_limit_violation).
  const std::int64_t max = !grid ? std::int64_t{UINT_MAX} : axis == 0 ? std::int64_t{INT_MAX} : 65535;
  const std::int64_t v = evaluate(d, e, env, field);
  if (v < 1 || v > max)
    throw std::invalid_argument(field + " = " + clipped(e.to_string()) + " is " + std::to_string(v) +
                                (v < 1 ? ": a launch needs at least 1"
                                       : ": more than a launch can have (at most " + std::to_string(max) +
                                             (grid ? std::string(" blocks in ") + "xyz"[axis] : std::string()) + ")"));
  return static_cast<unsigned>(v);
}

std::size_t shared_memory_bytes(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                                const std::string& field) {
  const std::int64_t v = evaluate(d, e, env, field);
  if (v < 0 || v > std::int64_t{UINT_MAX})
    throw std::invalid_argument(field + " = " + clipped(e.to_string()) + " is " + std::to_string(v) + " bytes" +
                                (v < 0 ? ": dynamic shared memory must be >= 0"
                                       : ": more than any GPU's shared memory per block"));
  return static_cast<std::size_t>(v);
}

std::optional<std::string> block_limit_violation(const Dim3& block) {
  const std::array<std::pair<unsigned, unsigned>, 3> dims{{{block.x, 1024}, {block.y, 1024}, {block.z, 64}}};
  for (std::size_t axis = 0; axis < 3; ++axis)
    if (dims[axis].first > dims[axis].second)
      return "launch.block[" + std::to_string(axis) + "] is " + std::to_string(dims[axis].first) +
             " threads: a block has at most " + std::to_string(dims[axis].second) + " in " + "xyz"[axis];
  return std::nullopt;
}

void check_launch(const KernelDescription& d, const Problem& problem, const Target& target) {
  const search::Config env = problem_environment(d, problem, &target);
  const auto& l = d.launch_exprs;
  const std::array<const search::Expr*, 3> block{&l.block_x, &l.block_y, &l.block_z}, grid{&l.grid_x, &l.grid_y, &l.grid_z};
  std::string field;
  try {
    for (std::size_t axis = 0; axis < 3; ++axis) {
      field = "launch.grid[" + std::to_string(axis) + "]";
      if (!reads_parameter(d, *grid[axis])) (void)launch_dimension(d, *grid[axis], env, field, true, axis);
      field = "launch.block[" + std::to_string(axis) + "]";
      if (reads_parameter(d, *block[axis])) continue;
      const unsigned v = launch_dimension(d, *block[axis], env, field, false, axis);
      const Dim3 alone{axis == 0 ? v : 1U, axis == 1 ? v : 1U, axis == 2 ? v : 1U}; // the others may read parameters
      if (const auto why = block_limit_violation(alone)) throw std::invalid_argument(*why);
    }
    field = "launch.shared_memory";
    if (!reads_parameter(d, l.shared_memory)) (void)shared_memory_bytes(d, l.shared_memory, env, field);
  } catch (const std::invalid_argument& e) {
    throw DescriptionError(origin_of(d), field, e.what());
  }
}

} // namespace memtune::description_detail
