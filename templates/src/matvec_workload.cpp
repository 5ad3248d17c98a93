#include "matvec_workload.hpp"

#include "matvec/matvec_cublas.hpp"

#include <memtune/random_data.hpp>

#include <cstdio>
#include <stdexcept>

namespace memtune::templates {

MatvecWorkload::MatvecWorkload(std::int64_t rows, std::int64_t cols, MatvecLayout layout, std::uint64_t seed)
    : rows_(rows), cols_(cols), layout_(layout), a_(static_cast<std::size_t>(rows * cols)),
      x_(static_cast<std::size_t>(cols)) {
  fill_random(a_, seed);
  fill_random(x_, seed + 1);
  reference_ = matvec_reference(layout, rows, cols, a_, x_);
  tolerance_ = matvec_tolerance(layout, rows, cols, a_, x_);
}

void MatvecWorkload::upload(const UploadContext& context) {
  const auto floats = [](std::int64_t count) { return static_cast<std::size_t>(count) * sizeof(float); };
  d_a_ = cuda::DeviceBuffer(floats(rows_ * cols_));
  d_a_.upload(a_.data(), floats(rows_ * cols_));
  d_x_ = cuda::DeviceBuffer(floats(cols_));
  d_x_.upload(x_.data(), floats(cols_));
  d_y_ = cuda::DeviceBuffer(floats(rows_));
  d_partial_ = cuda::DeviceBuffer(floats(matvec_max_splits(cols_) * rows_));
  // One counter per row tile; a tile has at least one row.
  d_counters_ = cuda::DeviceBuffer(static_cast<std::size_t>(rows_) * sizeof(unsigned));
  const std::vector<unsigned> zeros(static_cast<std::size_t>(rows_), 0U);
  d_counters_.upload(zeros.data(), zeros.size() * sizeof(unsigned));
  verifier_ = DeviceVerifier(reference_, tolerance_, context);
}

std::vector<void*> MatvecWorkload::kernel_args(const search::Config& config) {
  arg_a_ = d_a_.get();
  arg_x_ = d_x_.get();
  arg_y_ = d_y_.get();
  arg_partial_ = d_partial_.get();
  arg_counters_ = d_counters_.get();
  arg_m_ = rows_;
  arg_n_ = cols_;
  arg_chunk_ = matvec_chunk(cols_, config.at("splits"));
  return {&arg_a_, &arg_x_, &arg_y_, &arg_m_, &arg_n_, &arg_chunk_, &arg_partial_, &arg_counters_};
}

void MatvecWorkload::poison(CUstream stream) {
  poison_output_only(stream);
  d_counters_.fill_u32(0U, stream);
}

void MatvecWorkload::poison_output_only(CUstream stream) { d_y_.fill_u32(0x7FC00000U, stream); } // quiet NaN

Verification MatvecWorkload::verify(CUstream stream) { return verifier_.verify(d_y_.get(), stream); }

std::unique_ptr<Baseline> MatvecWorkload::make_baseline(const std::string& name) {
  if (name != "cublas") throw std::invalid_argument("matvec has no baseline '" + name + "' (known: cublas)");
  return make_cublas_sgemv(layout_, rows_, cols_, d_a_.get(), d_x_.get(), d_y_.get());
}

} // namespace memtune::templates
