#pragma once
// bayes+model's prior for a recorded space: the analytical model's
// log(time [s]) per config on the catalogue target named by the recording's
// device, from a probe's prior, a built-in template's model, or the model
// section of a --spec description of the same kernel (recording_prior.cpp).
#include <memtune/description/kernel_description.hpp>
#include <memtune/search/recording.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memtune::bench {

// nullopt, with `why_not` saying why, when no model fits the recording.
[[nodiscard]] std::optional<std::function<double(const search::Config&)>> recording_prior(
    const search::Recording& rec, const std::vector<KernelDescription>& specs, std::string& why_not);

} // namespace memtune::bench
