#include "fdtd_workload.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/random_data.hpp>
#include <memtune/templates/fdtd.hpp>

#include <cfloat>
#include <stdexcept>

namespace memtune::templates {

FdtdWorkload::FdtdWorkload(std::int64_t nx, std::int64_t ny, std::int64_t nz, int radius, std::uint64_t seed)
    : nx_(nx), ny_(ny), nz_(nz), radius_(radius), input_(static_cast<std::size_t>(nx * ny * nz)),
      coefficients_(random_fdtd_coefficients(radius, seed + 1)) {
  fill_random(input_, seed);
  reference_ = fdtd_reference(input_, nx, ny, nz, coefficients_);
  tolerance_ = fdtd_tolerance(radius);
}

void FdtdWorkload::upload(const UploadContext& context) {
  const std::size_t bytes = input_.size() * sizeof(float);
  d_in_ = cuda::DeviceBuffer(bytes);
  d_out_ = cuda::DeviceBuffer(bytes);
  d_in_.upload(input_.data(), bytes);
  verifier_ = DeviceVerifier(reference_, tolerance_, context);
}

void FdtdWorkload::prepare(CUmodule module) {
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  MEMTUNE_CU(cuda::driver_api().cuModuleGetGlobal(&address, &bytes, module, "memtune_fdtd_coeffs"));
  if (bytes != coefficients_.size() * sizeof(float))
    throw std::logic_error("fdtd module was compiled for a different radius");
  MEMTUNE_CU(cuda::driver_api().cuMemcpyHtoD(address, coefficients_.data(), bytes));
}

std::vector<void*> FdtdWorkload::kernel_args(const search::Config& config) {
  const std::int64_t zsplit = config.at("zsplit");
  arg_in_ = d_in_.get();
  arg_out_ = d_out_.get();
  arg_nx_ = static_cast<int>(nx_);
  arg_ny_ = static_cast<int>(ny_);
  arg_nz_ = static_cast<int>(nz_);
  arg_chunk_ = static_cast<int>((nz_ + zsplit - 1) / zsplit); // as FdtdGeometry::chunk
  return {&arg_in_, &arg_out_, &arg_nx_, &arg_ny_, &arg_nz_, &arg_chunk_};
}

void FdtdWorkload::poison(CUstream stream) {
  d_out_.fill_u32(0x7FC00000U, stream); // quiet NaN
}

Verification FdtdWorkload::verify(CUstream stream) { return verifier_.verify(d_out_.get(), stream); }

} // namespace memtune::templates
