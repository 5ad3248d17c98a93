#pragma once
// Compares a kernel's output with a double-precision reference.
#include <memtune/description/verification.hpp>

#include <span>

namespace memtune {

// ok when every |out[i] - ref[i]| <= tolerance; NaN or inf never passes (the
// poisoned output is NaN, so an element the kernel did not write fails).
Verification compare_with_reference(std::span<const float> out, std::span<const double> ref, double tolerance);

} // namespace memtune
