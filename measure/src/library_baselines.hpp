#pragma once
// Internal to measure/: the baselines memtune provides (library_baseline.cpp
// binds a description's LibraryBaseline and makes one by its call's name).
#include <memtune/description/baseline.hpp>
#include <memtune/description/kernel_description.hpp>

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace memtune::measure_detail {

// A LibraryBaseline's operands, evaluated for the run: values range-checked
// and buffers type-checked on the way out, errors naming the operand.
class BoundBaseline {
public:
  BoundBaseline(const KernelDescription& d, std::string name, const LibraryBaseline& spec, const Problem& problem,
                std::function<CUdeviceptr(const std::string& buffer)> buffer);
  [[nodiscard]] std::int64_t value(const std::string& operand, std::int64_t lo, std::int64_t hi) const;
  [[nodiscard]] CUdeviceptr buffer(const std::string& operand, ElementType type) const;

private:
  const KernelDescription& d_;
  std::string name_;
  const LibraryBaseline& spec_;
  const Problem& problem_;
  std::function<CUdeviceptr(const std::string&)> buffer_;
};

std::unique_ptr<Baseline> make_cublas_sgemv(const BoundBaseline& bound);

} // namespace memtune::measure_detail
