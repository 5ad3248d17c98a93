#pragma once
// The filter template: a 1D FIR filter with coefficients in constant memory
// (source: templates/filter/filter.cu). Problem: n (signal length, any n >= 1)
// and taps (default 21).
//
// Axes: block_size, packing (1 float / float2 / float4 per shared element,
// segments n/packing apart), items (consecutive outputs per thread), vec
// (floats per global access), align (16-byte aligned staged tile), and
// bank_mode on targets that have one (Kepler).
#include <memtune/description/kernel_description.hpp>

#include <span>
#include <string>
#include <vector>

namespace memtune::templates {

// The filter as a kernel description (templates/filter/filter.cpp).
const KernelDescription& filter_description();

// The `staging` axis: smem (filter_kernel, the article's shared tile), direct
// and shfl (filter_direct without and with warp shuffles), and its labels.
enum class FilterStaging : std::int64_t { smem = 0, direct = 1, shfl = 2 };
const std::vector<std::string>& filter_staging_labels();

// The CPU reference, accumulated in double: out[i] = sum_k c[k] in[i - R + k],
// R = taps/2, zero outside [0, n).
std::vector<double> filter_reference(std::span<const float> in, std::span<const float> taps);

// What the kernel's float sum may differ from the reference by: 2 taps eps
// sum|c| (every FMA rounds once; |in| <= 1), plus a floor for exact zeros.
double filter_tolerance(std::span<const float> taps);

// Random coefficients normalised to sum |c| = 1 (so outputs stay in [-1, 1]).
std::vector<float> random_filter_taps(int taps, std::uint64_t seed);

} // namespace memtune::templates
