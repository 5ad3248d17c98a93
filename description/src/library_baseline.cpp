// The baselines memtune provides by name (LibraryBaseline): what each call
// computes and the operands a description binds. measure/ runs them.
#include <memtune/description/kernel_description.hpp>

namespace memtune {

const std::vector<LibraryBaselineCall>& library_baseline_calls() {
  static const std::vector<LibraryBaselineCall> calls{
      {"cublas_sgemv",
       "cuBLAS sgemv, y = A x: A rows x cols floats, column-major unless row_major is not 0 (libcublas, loaded at run "
       "time)",
       {"A", "x", "y"},
       {"rows", "cols", "row_major"}},
  };
  return calls;
}

} // namespace memtune
