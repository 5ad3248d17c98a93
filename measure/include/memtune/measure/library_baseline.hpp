#pragma once
// A description's baseline by name, on the run's buffers: one memtune
// provides (KernelDescription::baselines, data: it travels to a worker) or a
// C++ factory (hooks.baselines, in the process that holds it).
#include <memtune/description/baseline.hpp>
#include <memtune/description/kernel_description.hpp>

#include <memory>
#include <string>

namespace memtune {

// nullptr when the description has no baseline `name`. Throws
// std::invalid_argument naming the operand where a value is out of its range
// or a buffer is not of the type the call needs.
std::unique_ptr<Baseline> make_baseline(const KernelDescription& description, const std::string& name,
                                        const BaselineContext& context);

} // namespace memtune
