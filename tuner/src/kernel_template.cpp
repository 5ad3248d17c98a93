#include <memtune/kernel_template.hpp>

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

} // namespace memtune
