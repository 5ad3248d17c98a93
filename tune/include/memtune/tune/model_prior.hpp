#pragma once
// The analytical model as the Bayesian search's prior mean
// (search::BayesOptions::prior_mean): the GP then learns only where the model
// is wrong, and the search starts at the config the model predicts fastest.
//
//   search::BayesOptions o;
//   o.prior_mean = model_prior(kernel, problem, target, space);   // ~2 ms a config, no compile
//
// Each config is predicted with no register limit and no static shared
// memory (bounded_grid.hpp, model_estimate), so nothing is compiled. Registers only lower occupancy, which the model
// maps to a slower time; the prior is therefore optimistic for
// register-hungry configs, and the GP corrects that from measurements.
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/search/space.hpp>
#include <memtune/model/target.hpp>
#include <memtune/tune/transfer.hpp>

#include <functional>

namespace memtune {

// Predicted log(time [s]) for every valid config of `space`: computed once
// here when the space can be listed (Space::kEnumerateLimit), else per call,
// for the configs the search scores (bounded memory on 10^7+ spaces; the
// slowest prediction then comes from 4096 configs spread over the grid;
// `kernel` must then outlive the function). Configs for which the model fits
// no block on the target (they will fail) get the slowest prediction of the others: the prior makes no claim
// about feasibility, the feasibility model learns it from failures. A config
// outside `space` gets the slowest prediction too. Throws std::runtime_error
// when the model predicts no config at all (then no prior is better than a
// flat one; a space too large to list: none of the sampled configs), and
// std::invalid_argument for a description without a model.
[[nodiscard]] std::function<double(const search::Config&)> model_prior(const KernelDescription& kernel,
                                                                       const Problem& problem, const Target& target,
                                                                       const search::Space& space);

// The prior for a GPU from another GPU's measured run: the transferred
// prediction of `--target X --from` (transfer_predictions in transfer.hpp:
// the model's ratio between `target` and the source GPU per config, with the
// source's measured memory floor), from no-register-limit predictions as
// above, so nothing is compiled. A second GPU then starts its search where
// the first one's measurements say, corrected for what differs. A kernel
// without an access pattern gets the source's times at one ratio
// (transfer_by_bandwidth): the first GPU's ranking. A source with
// TransferSource::problem set (another size on this GPU, sweep_source) is
// carried by the model's ratio between the two problems on `target` (without
// a model: its times x the ratio of bytes moved), each side predicted with
// ptxas' registers where the source compiled the same kernel instantiation
// (TransferSource::compiled: a configuration that differs only in launch
// axes shares them), without them elsewhere.
[[nodiscard]] std::function<double(const search::Config&)> transfer_prior(const KernelDescription& kernel,
                                                                          const Problem& problem,
                                                                          const Target& target,
                                                                          const TransferSource& source,
                                                                          const search::Space& space);

} // namespace memtune
