#pragma once
// The matvec template's baseline "cublas": cublasSgemv (loaded at run time,
// cublas_loader.hpp) computing y = A x on the run's own buffers, so it is
// timed and verified like every candidate.
#include <memtune/description/baseline.hpp>
#include <memtune/templates/matvec.hpp>

#include <cuda.h>

#include <cstdint>
#include <memory>

namespace memtune::templates {

// rows and cols must fit cuBLAS's int sizes (the matvec problem's limits do).
// The baseline reports itself unavailable, with the reason, where cuBLAS is missing.
std::unique_ptr<Baseline> make_cublas_sgemv(MatvecLayout layout, std::int64_t rows, std::int64_t cols, CUdeviceptr a,
                                            CUdeviceptr x, CUdeviceptr y);

} // namespace memtune::templates
