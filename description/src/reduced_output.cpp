#include <memtune/description/reduced_output.hpp>

#include <memtune/description/poison.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace memtune {

const char* to_string(ReducedOutput::Op op) {
  switch (op) {
  case ReducedOutput::Op::sum: return "sum";
  case ReducedOutput::Op::min: return "min";
  case ReducedOutput::Op::max: return "max";
  case ReducedOutput::Op::count: return "count";
  }
  return "?";
}

namespace description_detail {

ReducedValue reduce_output(ReducedOutput::Op op, ElementType type, std::span<const std::byte> bytes, std::int64_t count) {
  const std::size_t size = element_size(type);
  if (count < 0 || static_cast<std::size_t>(count) * size > bytes.size())
    throw std::invalid_argument("the reduced comparison's count " + std::to_string(count) + " is outside the buffer's " +
                                std::to_string(bytes.size() / size) + " elements");
  const ElementType lane = lane_type(type);
  const std::size_t lane_bytes = element_size(lane);
  ReducedValue r;
  r.lanes = count * lane_count(type);
  if (op == ReducedOutput::Op::min) r.value = std::numeric_limits<double>::infinity();
  if (op == ReducedOutput::Op::max) r.value = -std::numeric_limits<double>::infinity();
  // Kahan-Babuska summation: the reference of a million partials keeps its digits.
  double compensation = 0.0;
  for (std::int64_t i = 0; i < r.lanes; ++i) {
    const std::byte* at = bytes.data() + static_cast<std::size_t>(i) * lane_bytes;
    if (is_poisoned_lane(lane, at) && (is_floating(lane) || !poison_is_ambiguous(lane))) {
      ++r.unwritten;
      continue;
    }
    const double x = lane_value(lane, at);
    r.magnitude += std::fabs(x);
    switch (op) {
    case ReducedOutput::Op::sum: {
      const double t = r.value + x;
      compensation += std::fabs(r.value) >= std::fabs(x) ? (r.value - t) + x : (x - t) + r.value;
      r.value = t;
      break;
    }
    case ReducedOutput::Op::min: r.value = std::min(r.value, x); break;
    case ReducedOutput::Op::max: r.value = std::max(r.value, x); break;
    case ReducedOutput::Op::count: r.value += x != 0.0 ? 1.0 : 0.0; break;
    }
  }
  if (op == ReducedOutput::Op::sum) r.value += compensation;
  return r;
}

Verification compare_reduced(const ReducedOutput& spec, ElementType type, const ReducedValue& candidate,
                             std::int64_t candidate_count, const ReducedValue& reference, std::int64_t reference_count) {
  const Tolerance t = spec.tolerance.value_or(Tolerance{0.0, default_relative_tolerance(type)});
  const double scale = spec.op == ReducedOutput::Op::sum ? std::max(candidate.magnitude, reference.magnitude)
                                                         : std::fabs(reference.value);
  Verification v;
  v.buffer = spec.buffer;
  // An integer reduction has no rounding to allow for: only an explicit abs
  // applies, never rel (1e-5 of a million ints' magnitudes would hide a
  // missing element when one description's tolerance serves {T} = float and int).
  v.tolerance = t.abs + (is_floating(lane_type(type)) ? t.rel * scale : 0.0);
  const double error = std::fabs(candidate.value - reference.value);
  v.max_abs_error = std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
  v.ok = candidate.unwritten == 0 && error <= v.tolerance;
  if (v.ok) return v;
  v.bad_count = 1;
  v.first_bad = 0;
  std::ostringstream note;
  note.precision(9);
  note << "the " << to_string(spec.op) << " of the first " << candidate_count << " elements of '" << spec.buffer
       << "' is " << candidate.value << ", the reference's (first " << reference_count << ") " << reference.value
       << " (allowed difference " << v.tolerance << ")";
  if (candidate.unwritten > 0)
    note << "; " << candidate.unwritten << " of those " << candidate.lanes << " values were never written (still poisoned)";
  v.note = note.str();
  return v;
}

} // namespace description_detail
} // namespace memtune
