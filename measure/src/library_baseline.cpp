#include <memtune/measure/library_baseline.hpp>

#include <memtune/description/description_internal.hpp>
#include "library_baselines.hpp"

#include <stdexcept>
#include <variant>

namespace memtune {
namespace measure_detail {

BoundBaseline::BoundBaseline(const KernelDescription& d, std::string name, const LibraryBaseline& spec,
                             const Problem& problem, std::function<CUdeviceptr(const std::string&)> buffer)
    : d_(d), name_(std::move(name)), spec_(spec), problem_(problem), buffer_(std::move(buffer)) {}

std::int64_t BoundBaseline::value(const std::string& operand, std::int64_t lo, std::int64_t hi) const {
  const std::string field = "baselines." + name_ + ".values." + operand;
  const search::Config env = description_detail::environment(d_, nullptr, problem_, nullptr);
  const std::int64_t v = description_detail::evaluate(d_, spec_.values.at(operand), env, field);
  if (v < lo || v > hi)
    throw std::invalid_argument(field + " = " + std::to_string(v) + " for this problem: " + spec_.call + " takes " +
                                std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

CUdeviceptr BoundBaseline::buffer(const std::string& operand, ElementType type) const {
  const std::string& name = spec_.buffers.at(operand);
  for (const Argument& a : d_.arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a); b && b->name == name && b->type != type)
      throw std::invalid_argument("baselines." + name_ + ".buffers." + operand + ": '" + name + "' holds " +
                                  to_string(b->type) + "; " + spec_.call + " needs " + to_string(type));
  return buffer_(name);
}

} // namespace measure_detail

std::unique_ptr<Baseline> make_baseline(const KernelDescription& d, const std::string& name,
                                        const BaselineContext& context) {
  if (const auto it = d.baselines.find(name); it != d.baselines.end()) {
    const measure_detail::BoundBaseline bound(d, name, it->second, context.problem, context.buffer);
    if (it->second.call == "cublas_sgemv") return measure_detail::make_cublas_sgemv(bound);
    throw std::invalid_argument("baselines." + name + ".call: '" + it->second.call + "' is not a baseline memtune provides");
  }
  if (const auto it = d.hooks.baselines.find(name); it != d.hooks.baselines.end()) return it->second(context);
  return nullptr;
}

} // namespace memtune
