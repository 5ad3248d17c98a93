#pragma once
// Internal: the values of a description's arguments and launch for one
// configuration, shared by the tuning workload and the application's launcher.
#include <memtune/description/kernel_description.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
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

// [elements] what memtune allocates for a buffer argument in `env`: offset +
// count (buffer_offset, buffer_count), whose bytes must fit in 63 bits, or
// std::invalid_argument naming "<field>.offset" or "<field>.count (<name>)".
// Example: offset 28, count 1M floats -> 1048604.
std::int64_t buffer_elements(const KernelDescription& d, const BufferArgument& buffer, const search::Config& env,
                             const std::string& field);

// [elements] a reduced comparison's count in `env`, at most `available` (the
// buffer's elements from the kernel's pointer); otherwise std::invalid_argument
// naming the verify.reduce entry.
std::int64_t reduced_count(const KernelDescription& d, const ReducedOutput& reduced, const search::Config& env,
                           std::int64_t available);

// Checks, for `problem` on `target` and before anything runs (modeled runs too), every
// argument that reads no tunable parameter: a scalar's value fits its C type
// (an `int n` of 3G does not; a half one of 70000 neither), a buffer's offset
// and count are >= 0 and their bytes fit. The others are checked per
// configuration by scalar_bytes and buffer_elements. Throws DescriptionError
// naming the description file and "arguments[i]" (or the derived value that
// cannot be evaluated). Returns [bytes] what those buffers take at least
// (offset + count elements each), for the device-memory check.
std::uint64_t check_arguments(const KernelDescription& d, const Problem& problem, const Target& target);

// One dimension of launch.block or launch.grid (`grid`: a grid's; `axis` 0, 1,
// 2 for x, y, z) in `env`: at least 1, and a grid within CUDA's 2^31-1 x 65535
// x 65535 blocks (every GPU memtune tunes for); otherwise std::invalid_argument
// "<field> = <expr> is <v>: <why>". A block's limits are the device's
// (block_limit_violation): a candidate beyond them exceeds_device_limits.
unsigned launch_dimension(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                          const std::string& field, bool grid, std::size_t axis);

// [bytes] launch.shared_memory in `env`: 0 or more, and at most 4 GiB - 1 (the
// device's own limit is checked with the candidate's static shared memory);
// otherwise std::invalid_argument "<field> = <expr> is <v> bytes: <why>".
std::size_t shared_memory_bytes(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                                const std::string& field);

// Why a block of this shape cannot launch: a dimension above CUDA's
// 1024 x 1024 x 64 ("launch.block[2] is 128 threads: a block has at most 64
// in z"); nullopt when none is. Its threads against the target's
// max_threads_per_block are the tuner's check (resource_limit_violation).
std::optional<std::string> block_limit_violation(const Dim3& block);

// Checks, for `problem` on `target` and before anything is compiled, the
// launch fields that read no tunable parameter (each would fail every
// candidate alike): launch_dimension's and shared_memory_bytes' rules and
// block_limit_violation (`target` gives the device attributes they may read;
// its own limits stay the tuner's per-candidate checks). Throws
// DescriptionError naming the file and "launch.grid[1]".
void check_launch(const KernelDescription& d, const Problem& problem, const Target& target);

} // namespace memtune::description_detail
