#include <memtune/kernel_template.hpp>

#include <algorithm>
#include <stdexcept>

namespace memtune {

CompileRequest compile_request(const KernelTemplate& kernel, const LaunchSpec& launch, int compute_capability) {
  CompileRequest r;
  r.source = kernel.source();
  r.source_name = kernel.source_name();
  r.name_expression = launch.name_expression;
  r.options = launch.options;
  // -lineinfo lets Nsight Compute map counters to template source lines.
  r.options.emplace_back("-lineinfo");
  r.options.emplace_back("-std=c++17");
  r.compute_capability = compute_capability;
  return r;
}

std::unique_ptr<Baseline> Workload::make_baseline(const std::string& name) {
  throw std::invalid_argument("this workload has no baseline '" + name + "'");
}

void check_baseline_names(const KernelTemplate& kernel, const std::vector<std::string>& names) {
  const std::vector<std::string> known = kernel.baselines();
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument("unknown baseline '" + name + "' for " + kernel.name() +
                                (known.empty() ? " (it has none)" : " (known: " + list + ")"));
  }
}

} // namespace memtune
