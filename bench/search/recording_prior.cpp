#include "recording_prior.hpp"

#include <memtune/measure/target_resolver.hpp>
#include <memtune/probe/prior.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tune/model_prior.hpp>

#include <cstdint>

namespace memtune::bench {

std::optional<std::function<double(const search::Config&)>> recording_prior(
    const search::Recording& rec, const std::vector<KernelDescription>& specs, std::string& why_not) {
  const std::string device = rec.device.value("name", "");
  const model::TargetCatalog catalog = load_targets();
  const Target* target = catalog.try_find(device);
  if (!target) {
    why_not = "device '" + device + "' is not in the target catalogue";
    return std::nullopt;
  }
  Problem problem;
  for (const auto& [name, value] : rec.problem.items())
    if (value.is_number_integer()) problem[name] = value.get<std::int64_t>();
  if (auto prior = probe::probe_prior(rec.template_name, problem, *target)) return prior;
  const KernelDescription* kernel = nullptr;
  for (const KernelDescription* k : templates::descriptions())
    if (k->name == rec.template_name && k->has_model()) kernel = k;
  // A user kernel's recording: the --spec description of the same kernel
  // (its fingerprint: the source and the description that were recorded).
  std::string spec_mismatch;
  for (const KernelDescription& k : specs) {
    if (kernel || k.name != rec.template_name) continue;
    if (k.fingerprint() != rec.kernel_fingerprint)
      spec_mismatch = " (--spec '" + k.name + "' has fingerprint " + k.fingerprint() + ", the recording " +
                      rec.kernel_fingerprint + ": the kernel changed since it was recorded)";
    else if (!k.has_model())
      spec_mismatch = " (--spec '" + k.name + "' has no model section)";
    else
      kernel = &k;
  }
  if (!kernel) {
    why_not = "no model for template '" + rec.template_name + "'" + spec_mismatch;
    return std::nullopt;
  }
  problem = kernel->complete(problem);
  return model_prior(*kernel, problem, *target, rec.space);
}


} // namespace memtune::bench
