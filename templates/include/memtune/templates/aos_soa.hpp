#pragma once
// The aos_soa template: n structs of F floats (default 3: x, y, z) read,
// written or updated in place, in an AoS or SoA layout (source:
// templates/aos_soa/aos_soa.cu, which defines the operations exactly).
// Problem: n (elements), op (read / write / readwrite), fields (F, 1..8).
//
// Axes: layout (aos, soa, aos_ldg, aos_smem, aos_vec), block_size, items
// (elements per thread). The layout is the user-facing data layout of the
// struct array: AoS is [n][F]; SoA is F arrays of n at a pitch of
// aos_soa_pitch(n) floats.
#include <memtune/description/kernel_description.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace memtune::templates {

enum class AosSoaOp : std::int64_t { read = 0, write = 1, readwrite = 2 };
enum class AosSoaLayout : std::int64_t { aos = 0, soa = 1, aos_ldg = 2, aos_smem = 3, aos_vec = 4 };

// The labels of the `op` problem parameter and the `layout` axis, by value.
const std::vector<std::string>& aos_soa_op_labels();
const std::vector<std::string>& aos_soa_layout_labels();

// The aos_soa as a kernel description (templates/aos_soa/aos_soa.cpp).
const KernelDescription& aos_soa_description();

// [floats] distance between two field arrays in the SoA layout: n rounded up
// to 4, so every field array starts 16-byte aligned.
std::int64_t aos_soa_pitch(std::int64_t n);

// The CPU reference, in double, in the AoS order of the outputs the
// operation writes (the kernel's arithmetic is defined in aos_soa.cu):
//   read:      in = n*F struct floats (AoS order), returns out[i] = sum_f in[i*F+f]
//   write:     in = n scalars, returns S[i*F+f] = in[i] * (f+1)
//   readwrite: in = n*F struct floats (AoS order), returns S[i*F+f] = in[i*F+f] * c_f + 1
std::vector<double> aos_soa_reference(AosSoaOp op, int fields, std::span<const float> in);
// What the kernel's float arithmetic may differ from the reference by (|in| <= 1).
double aos_soa_tolerance(AosSoaOp op, int fields);
// c_f of readwrite: 0.5 + 0.25 f (exact in float).
double aos_soa_readwrite_scale(int field);

// Converts an AoS struct array (n*F floats) to SoA at aos_soa_pitch(n)
// (padding filled with `pad`), and back.
template <class T> std::vector<T> aos_to_soa(std::span<const T> aos, int fields, T pad);
template <class T> std::vector<T> soa_to_aos(std::span<const T> soa, std::int64_t n, int fields);

// What a layout change buys, in a sentence or three, from the tuning result's
// best time per layout ([seconds], keyed by layout label; missing layouts are
// skipped). Example:
//   "soa is 2.9x faster than aos here (0.31 ms vs 0.90 ms): aos stores 12-byte
//    structs, so a warp's 4-byte load of one field touches 3.0x the 32-byte
//    sectors it uses (12 sectors for 128 bytes) ..."
std::string aos_soa_layout_note(const Problem& problem, const std::map<std::string, double>& best_seconds_by_layout);
// aos_soa_layout_note over a run's best time per layout; empty with fewer than two layouts timed.
std::string aos_soa_explain(const TuningResult& result);

} // namespace memtune::templates
