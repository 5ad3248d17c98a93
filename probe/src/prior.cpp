#include <memtune/probe/prior.hpp>

#include <memtune/probe/bank_probe.hpp>
#include <memtune/probe/coalescing.hpp>

#include <cmath>
#include <stdexcept>

namespace memtune::probe {
namespace {

std::int64_t size_of(const Problem& problem, const std::string& name, const std::string& probe) {
  const auto it = problem.find(name);
  if (it == problem.end() || it->second <= 0)
    throw std::invalid_argument(probe + " prior: the problem needs a positive '" + name + "'");
  return it->second;
}

} // namespace

std::optional<std::function<double(const search::Config&)>>
probe_prior(const std::string& template_name, const Problem& problem, const Target& target) {
  if (template_name == "probe-offset" || template_name == "probe-stride") {
    const bool offset = template_name == "probe-offset";
    const auto n = static_cast<std::uint64_t>(size_of(problem, "n", template_name));
    return [offset, n, target](const search::Config& c) {
      const auto s = static_cast<int>(c.at(offset ? "offset" : "stride"));
      return std::log(predict_coalescing_time(offset ? Coalescing::offset : Coalescing::stride, s, n, target));
    };
  }
  if (template_name == "probe-bank") {
    const std::int64_t blocks = size_of(problem, "blocks", template_name);
    const std::int64_t reps = size_of(problem, "reps", template_name);
    return [blocks, reps, target](const search::Config& c) {
      for (const BankVariant& v : bank_variants())
        if (v.width_bytes == c.at("width") && v.stride == c.at("stride"))
          return std::log(predict_bank_time(v, reps, blocks, target));
      throw std::invalid_argument("probe-bank prior: no bank variant with width " + std::to_string(c.at("width")) +
                                  " and stride " + std::to_string(c.at("stride")));
    };
  }
  return std::nullopt;
}

} // namespace memtune::probe
