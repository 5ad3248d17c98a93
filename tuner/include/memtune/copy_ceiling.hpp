#pragma once
// The copy ceiling: a device-to-device copy timed with the same protocol as
// the candidates (same L2 flushing, same statistics) in the same process, so
// "% of ceiling" is a ratio of two numbers from one run.
#include <memtune/measure.hpp>
#include <memtune/tuning_result.hpp>

namespace memtune {

// Copies `bytes` (at least twice the L2, so the copy streams from DRAM) and
// counts bytes read plus bytes written.
CopyCeiling measure_copy_ceiling(Timer& timer, std::size_t bytes);

// The ceiling (a copy of max(bytes_moved / 2, 2x L2)) and, when the problem is
// smaller than that, a copy of its own size, both into `result`.
void measure_copies(Timer& timer, std::size_t l2_bytes, TuningResult& result);

// Each measured candidate's fraction of the same-size copy (after the search).
void add_same_size_fractions(TuningResult& result);

} // namespace memtune
