#pragma once
// The verdict on one launch's outputs, and what a workload needs from the
// device to set its verification up.
#include <memtune/compile/compile_cache.hpp>

#include <cstdint>
#include <string>

namespace memtune {

struct UploadContext {
  int compute_capability = 0;
  const CompileCache* cache = nullptr; // may be null
};

// An output element passes when |out - ref| <= abs + rel * |ref|; NaN never passes.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

struct Verification {
  bool ok = false;
  std::string buffer;           // the first output that failed ("" when one output, or ok)
  double max_abs_error = 0.0;   // worst |out - ref| over the outputs (NaN/inf count as infinite)
  double tolerance = 0.0;       // the allowed error at first_bad (when ok: the largest allowed error)
  std::int64_t first_bad = -1;  // first element out of tolerance in `buffer`
  std::int64_t bad_count = 0;   // over all outputs
  std::string note;             // e.g. "the reference configuration left 12 elements unwritten"
};

} // namespace memtune
