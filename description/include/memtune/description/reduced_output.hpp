#pragma once
// Internal: the reduced comparison (VerifySpec::reduced): one number per run
// from the first `count` elements of an output, the candidate's against the
// reference's. Computed on the host from the elements downloaded: a
// reduction's partials are one per block, a few thousand at most.
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/verification.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace memtune::description_detail {

struct ReducedValue {
  double value = 0.0;        // sum, min, max or the count of non-zero lanes
  double magnitude = 0.0;    // sum of |x|: the scale of a sum's rounding
  std::int64_t lanes = 0;    // values reduced
  std::int64_t unwritten = 0; // lanes still poisoned (NaN, or a whole element of 0xA5 bytes for integers)
};

// op over every lane of the first `count` elements of `bytes` (of `type`).
// Throws std::invalid_argument when count is negative or beyond the bytes.
[[nodiscard]] ReducedValue reduce_output(ReducedOutput::Op op, ElementType type, std::span<const std::byte> bytes,
                                         std::int64_t count);

// The candidate's value against the reference's, as ReducedOutput::tolerance
// says; an unwritten lane fails. The note names the buffer, the op and both values.
[[nodiscard]] Verification compare_reduced(const ReducedOutput& spec, ElementType type, const ReducedValue& candidate,
                                           std::int64_t candidate_count, const ReducedValue& reference,
                                           std::int64_t reference_count);

} // namespace memtune::description_detail
