#pragma once
// A problem whose buffers cannot fit in the GPU's memory is refused before
// anything is compiled or launched, naming both numbers. tune() checks it
// against the GPU its worker reports, tune_modeled() against the target file,
// so every caller (the CLI, a program using the library) gets the same error.
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/model/target.hpp>

namespace memtune {

// DescriptionError (arguments[i]) for a scalar out of its C type's range, a
// negative buffer offset or count or one whose bytes do not fit in 64 bits,
// and (launch.grid[1], ...) for a launch field that reads no parameter and
// fails every candidate (description_detail::check_launch); then
// ArgumentError (argument "problem n=..."): the bytes one run reads and writes,
// or the buffers' offset + count elements where those are more (a lower bound
// of what the buffers take), exceed target.memory_bytes. A target whose memory
// is not known (0) passes.
void check_fits_memory(const KernelDescription& kernel, const Problem& problem, const Target& target);

} // namespace memtune
