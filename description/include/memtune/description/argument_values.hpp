#pragma once
// Internal: the values of a description's arguments for one configuration,
// shared by the tuning workload and the application's launcher.
#include <memtune/description/kernel_description.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace memtune::description_detail {

// A scalar argument's value in `env` (KernelDescription::environment), as
// cuLaunchKernel reads it: the first element_size(type) bytes. Throws
// std::invalid_argument "<field>.value (<name>) = <expr>: <why>".
std::array<std::byte, 8> scalar_bytes(const KernelDescription& d, const ScalarArgument& scalar,
                                      const search::Config& env, const std::string& field);

// [elements] a buffer argument's count in `env`; a negative count, or one
// whose bytes do not fit in 63 bits, is std::invalid_argument naming
// "<field>.count (<name>)".
std::int64_t buffer_count(const KernelDescription& d, const BufferArgument& buffer, const search::Config& env,
                          const std::string& field);

// [elements] a buffer argument's offset in `env` (the padding in front of the
// kernel's pointer); a negative offset is std::invalid_argument naming "<field>.offset".
std::int64_t buffer_offset(const KernelDescription& d, const search::Expr& offset, const search::Config& env,
                           const std::string& field);

// [elements] a reduced comparison's count in `env`, at most `available` (the
// buffer's elements from the kernel's pointer); otherwise std::invalid_argument
// naming the verify.reduce entry.
std::int64_t reduced_count(const KernelDescription& d, const ReducedOutput& reduced, const search::Config& env,
                           std::int64_t available);

// Checks, for `problem` on `target` and before anything runs (modeled runs too), every
// argument that reads no tunable parameter: a scalar's value fits its C type
// (an `int n` of 3G does not), a buffer's count is >= 0 and its bytes fit.
// The others are checked per configuration by scalar_bytes and buffer_count.
// Throws InputError naming the description file and "arguments[i]".
void check_arguments(const KernelDescription& d, const Problem& problem, const Target& target);

} // namespace memtune::description_detail
