#pragma once
// The model's prediction for the probes' recorded spaces, as a prior mean for
// Bayesian search over them (search::BayesOptions::prior_mean), the probes'
// counterpart of model_prior.hpp for the templates.
//
//   auto prior = probe_prior("probe-stride", {{"n", 1 << 25}}, h100);   // log(time [s]) per config
//   (*prior)(search::Config{{"stride", 1}}) < (*prior)(search::Config{{"stride", 2}})
//
// "probe-offset" / "probe-stride" (problem: n): predict_coalescing_time;
// "probe-bank" (problem: blocks, reps): predict_bank_time of the variant with
// the config's width and stride. Both come from the descriptions the probe
// runs and verifies with (coalescing.hpp, bank_probe.hpp).
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>

#include <functional>
#include <optional>
#include <string>

namespace memtune::probe {

// nullopt for a template name that is not a probe's. Throws
// std::invalid_argument when the problem lacks a needed size; the returned
// function throws it for a config that names no variant.
[[nodiscard]] std::optional<std::function<double(const search::Config&)>>
probe_prior(const std::string& template_name, const Problem& problem, const Target& target);

} // namespace memtune::probe
