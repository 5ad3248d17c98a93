#include "aos_soa_workload.hpp"

#include <memtune/random_data.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <span>

namespace memtune::templates {

AosSoaWorkload::AosSoaWorkload(std::int64_t n, AosSoaOp op, int fields, std::uint64_t seed)
    : n_(n), op_(op), fields_(fields), pitch_(aos_soa_pitch(n)),
      input_(static_cast<std::size_t>(op == AosSoaOp::write ? n : n * fields)) {
  fill_random(input_, seed);
  reference_ = aos_soa_reference(op, fields, input_);
  tolerance_ = aos_soa_tolerance(op, fields);
}

void AosSoaWorkload::upload(const UploadContext& context) {
  const auto floats = [](std::int64_t count) { return static_cast<std::size_t>(count) * sizeof(float); };
  const std::int64_t n = n_, f = fields_;
  if (op_ == AosSoaOp::write) {
    d_in_aos_ = cuda::DeviceBuffer(floats(n));
    d_in_aos_.upload(input_.data(), floats(n));
  } else {
    d_in_aos_ = cuda::DeviceBuffer(floats(n * f));
    d_in_aos_.upload(input_.data(), floats(n * f));
    const std::vector<float> soa = aos_to_soa<float>(input_, fields_, 0.0F);
    d_in_soa_ = cuda::DeviceBuffer(floats(f * pitch_));
    d_in_soa_.upload(soa.data(), floats(f * pitch_));
  }
  if (op_ == AosSoaOp::read) {
    d_out_ = cuda::DeviceBuffer(floats(n));
    verify_aos_ = DeviceVerifier(reference_, tolerance_, context);
  } else {
    d_out_ = cuda::DeviceBuffer(floats(std::max(n * f, f * pitch_)));
    verify_aos_ = DeviceVerifier(reference_, tolerance_, context);
    verify_soa_.clear();
    std::vector<double> field(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < f; ++k) {
      for (std::int64_t i = 0; i < n; ++i)
        field[static_cast<std::size_t>(i)] = reference_[static_cast<std::size_t>(i * f + k)];
      verify_soa_.emplace_back(field, tolerance_, context);
    }
  }
}

std::vector<void*> AosSoaWorkload::kernel_args(const search::Config& config) {
  const bool soa = static_cast<AosSoaLayout>(config.at("layout")) == AosSoaLayout::soa;
  arg_in_ = (soa && op_ != AosSoaOp::write) ? d_in_soa_.get() : d_in_aos_.get();
  arg_out_ = d_out_.get();
  arg_n_ = n_;
  arg_pitch_ = pitch_;
  out_is_soa_ = soa && op_ != AosSoaOp::read;
  return {&arg_in_, &arg_out_, &arg_n_, &arg_pitch_};
}

void AosSoaWorkload::poison(CUstream stream) {
  d_out_.fill_u32(0x7FC00000U, stream); // quiet NaN
}

Verification AosSoaWorkload::verify(CUstream stream) {
  if (!out_is_soa_) return verify_aos_.verify(d_out_.get(), stream);
  // One verdict over the F field arrays; element indices in AoS order (i*F + f).
  Verification all;
  all.ok = true;
  for (std::size_t k = 0; k < verify_soa_.size(); ++k) {
    const CUdeviceptr field = d_out_.get() + static_cast<CUdeviceptr>(k) * static_cast<CUdeviceptr>(pitch_) * sizeof(float);
    const Verification v = verify_soa_[k].verify(field, stream);
    all.tolerance = v.tolerance;
    all.max_abs_error = std::max(all.max_abs_error, v.max_abs_error);
    if (std::isnan(v.max_abs_error)) all.max_abs_error = v.max_abs_error;
    all.bad_count += v.bad_count;
    if (v.first_bad >= 0) {
      const std::int64_t index = v.first_bad * fields_ + static_cast<std::int64_t>(k);
      if (all.first_bad < 0 || index < all.first_bad) all.first_bad = index;
    }
    all.ok = all.ok && v.ok;
  }
  return all;
}

} // namespace memtune::templates
