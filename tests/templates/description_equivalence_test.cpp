// The four templates' kernel descriptions against the KernelTemplate classes
// they replace, while both exist: at the default problem and at odd ones, on
// the h100-sxm, k20 and a100 targets, the same problem defaults, the same
// space (axes, pruned axes with their reasons, every valid configuration in
// grid order), and for every configuration the same launch (name expression,
// NVRTC options, grid, block, dynamic shared memory); the same bytes moved;
// the same fills and references on the same data; an access pattern whose
// block and grid agree with the launch. When the classes go, these checks
// become checks against the spaces recorded on an H100 (bench/data).
#include <memtune/model/target_catalog.hpp>
#include <memtune/random_data.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>

#include "../../templates/src/aos_soa_workload.hpp"
#include "../../templates/src/fdtd_workload.hpp"
#include "../../templates/src/filter_workload.hpp"
#include "../../templates/src/matvec_workload.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace memtune;
using memtune::templates::AosSoaOp;

namespace {

const model::TargetCatalog& catalog() {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}

const std::vector<std::string> kTargets{"h100-sxm", "k20", "a100"};

void check_same_axes(const search::Space& old_space, const search::Space& new_space) {
  REQUIRE(old_space.axes().size() == new_space.axes().size());
  for (std::size_t i = 0; i < old_space.axes().size(); ++i) {
    const search::Axis& a = old_space.axes()[i];
    const search::Axis& b = new_space.axes()[i];
    CAPTURE(a.name);
    CHECK(a.name == b.name);
    CHECK(a.kind == b.kind);
    CHECK(a.values == b.values);
    CHECK(a.labels == b.labels);
  }
  REQUIRE(old_space.pruned().size() == new_space.pruned().size());
  for (std::size_t i = 0; i < old_space.pruned().size(); ++i) {
    CHECK(old_space.pruned()[i].name == new_space.pruned()[i].name);
    CHECK(old_space.pruned()[i].reason == new_space.pruned()[i].reason);
  }
}

// Space, launches, bytes and the access pattern's geometry of one problem on one target.
void check_problem(const KernelTemplate& old, const KernelDescription& described, const Problem& given,
                   const Target& target) {
  CAPTURE(old.name());
  CAPTURE(target.name);
  CAPTURE(format_problem(given));
  const Problem problem = complete_problem(old.problem_parameters(), given);
  CHECK(described.complete(given) == problem);
  CHECK(described.bytes_moved(problem) == old.bytes_moved(problem));

  const search::Space old_space = old.space(problem, target);
  const search::Space new_space = described.space(problem, target);
  check_same_axes(old_space, new_space);
  const std::vector<search::Config> configs = old_space.enumerate();
  REQUIRE(configs == new_space.enumerate());
  const search::Config fallback = described.default_config(problem, target);
  CHECK(new_space.is_valid(fallback));

  std::size_t mismatches = 0;
  for (const search::Config& c : configs) {
    const LaunchSpec a = old.launch(c, problem);
    const LaunchSpec b = described.launch(c, problem, target);
    const bool same = a.name_expression == b.name_expression && a.options == b.options && a.grid == b.grid &&
                      a.block == b.block && a.dynamic_smem_bytes == b.dynamic_smem_bytes;
    if (!same && mismatches++ < 3) {
      CAPTURE(new_space.format(c));
      CHECK(a.name_expression == b.name_expression);
      CHECK(a.options == b.options);
      CHECK(a.grid == b.grid);
      CHECK(a.block == b.block);
      CHECK(a.dynamic_smem_bytes == b.dynamic_smem_bytes);
    }
  }
  CHECK(mismatches == 0);

  // The model sees the block and the grid the launch uses (a sample of configurations: replays are not free).
  REQUIRE(described.has_model());
  for (std::size_t i = 0; i < configs.size(); i += std::max<std::size_t>(1, configs.size() / 8)) {
    const LaunchSpec l = described.launch(configs[i], problem, target);
    const AccessPattern pattern = described.hooks.access_pattern(configs[i], problem, target);
    CHECK(static_cast<std::uint64_t>(pattern.block_threads) == l.block.count());
    CHECK(static_cast<std::uint64_t>(pattern.blocks) == l.grid.count());
  }
}

void check_all_targets(const KernelTemplate& old, const KernelDescription& described,
                       const std::vector<Problem>& problems) {
  for (const std::string& name : kTargets)
    for (const Problem& p : problems) check_problem(old, described, p, catalog().find(name));
}

// The description's fill of an input or constant, as the workload runs it.
template <class T>
std::vector<T> fill(const KernelDescription& d, const std::string& name, const Problem& problem,
                    const search::Config& config, std::uint64_t seed, std::size_t count) {
  const Fill* f = nullptr;
  for (const Argument& a : d.arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a); b && b->name == name) f = &b->fill;
  for (const ConstantSymbol& c : d.constants)
    if (c.symbol == name) f = &c.fill;
  REQUIRE(f != nullptr);
  REQUIRE(f->kind == Fill::Kind::custom);
  std::vector<T> values(count);
  f->custom(FillRequest{problem, config, seed}, std::as_writable_bytes(std::span<T>(values)));
  return values;
}

// The description's expected outputs for inputs given by name.
std::vector<ExpectedOutput> expected(const KernelDescription& d, const Problem& problem, const search::Config& config,
                                     const std::map<std::string, std::span<const float>>& inputs) {
  REQUIRE(d.verify.mode == VerifySpec::Mode::callback);
  const ReferenceRequest request{problem, config, [&](const std::string& name) {
                                   return std::as_bytes(inputs.at(name));
                                 }};
  return d.verify.callback(request);
}

void check_same_reference(const std::vector<ExpectedOutput>& outputs, const std::string& buffer,
                          const std::vector<double>& reference, double tolerance) {
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].buffer == buffer);
  CHECK(outputs[0].offset == 0);
  CHECK(outputs[0].values == reference);
  CHECK(outputs[0].tolerance.abs == tolerance);
  CHECK(outputs[0].tolerance.rel == 0.0);
}

} // namespace

TEST_CASE("filter description: the FilterTemplate's spaces and launches, bank mode on Kepler only") {
  check_all_targets(templates::filter(), templates::filter_description(),
                    {{}, {{"n", 1}}, {{"n", 31}, {"taps", 4}}, {{"n", 1000003}, {"taps", 33}}, {{"n", 5}, {"taps", 1}}});
  const search::Space kepler = templates::filter_description().space({{"n", 1000}, {"taps", 21}}, catalog().find("k20"));
  CHECK(kepler.axis("bank_mode").values == std::vector<std::int64_t>{4, 8});
  const search::Space h100 = templates::filter_description().space({{"n", 1000}, {"taps", 21}}, catalog().find("h100-sxm"));
  REQUIRE(h100.pruned().size() == 1);
  CHECK(h100.pruned()[0].reason.rfind("sm_90 has fixed 4-byte", 0) == 0);
}

TEST_CASE("filter description: coefficients and reference as the FilterWorkload's") {
  const auto& d = templates::filter_description();
  for (const Problem& p : std::vector<Problem>{{{"n", 1}, {"taps", 21}}, {{"n", 1000}, {"taps", 33}}}) {
    const templates::FilterWorkload old(p.at("n"), static_cast<int>(p.at("taps")), 7);
    // The old workload draws the coefficients from seed + 1.
    CHECK(fill<float>(d, "memtune_filter_taps", p, {}, 8, old.taps().size()) == old.taps());
    const auto outputs = expected(d, p, {}, {{"in", old.input()}, {"memtune_filter_taps", old.taps()}});
    check_same_reference(outputs, "out", old.reference(), old.tolerance());
  }
}

TEST_CASE("matvec description: the MatvecTemplate's spaces and launches, both kernels and layouts") {
  std::vector<Problem> problems;
  for (std::int64_t layout : {0, 1}) {
    problems.push_back({{"layout", layout}});
    for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1}, {17, 5}, {1000, 3}, {3, 100000}, {65, 4099}, {4096, 2}, {6, 8194}})
      problems.push_back({{"rows", rows}, {"cols", cols}, {"layout", layout}});
  }
  check_all_targets(templates::matvec(), templates::matvec_description(), problems);
}

TEST_CASE("matvec description: reference as the MatvecWorkload's, workspace as scratch, cuBLAS by buffer name") {
  const auto& d = templates::matvec_description();
  for (std::int64_t layout : {0, 1}) {
    const Problem p{{"rows", 37}, {"cols", 129}, {"layout", layout}};
    const templates::MatvecWorkload old(37, 129, static_cast<templates::MatvecLayout>(layout), 3);
    const auto outputs = expected(d, p, {}, {{"A", old.a()}, {"x", old.x()}});
    check_same_reference(outputs, "y", old.reference(), old.tolerance());
  }
  std::vector<std::string> scratch;
  for (const Argument& a : d.arguments)
    if (const auto* b = std::get_if<BufferArgument>(&a); b && b->role == BufferRole::scratch) scratch.push_back(b->name);
  CHECK(scratch == std::vector<std::string>{"partial", "counters"});
  CHECK(d.baseline_names() == std::vector<std::string>{"cublas"});
}

TEST_CASE("aos_soa description: the AosSoaTemplate's spaces and launches for every op") {
  std::vector<Problem> problems;
  for (std::int64_t op : {0, 1, 2}) {
    problems.push_back({{"op", op}});
    for (std::int64_t n : {1, 1000003})
      for (std::int64_t fields : {1, 3, 4, 8}) problems.push_back({{"n", n}, {"op", op}, {"fields", fields}});
  }
  check_all_targets(templates::aos_soa(), templates::aos_soa_description(), problems);
}

TEST_CASE("aos_soa description: the input and the expected outputs follow the layout, as the AosSoaWorkload's") {
  const auto& d = templates::aos_soa_description();
  const std::int64_t n = 37;
  for (AosSoaOp op : {AosSoaOp::read, AosSoaOp::write, AosSoaOp::readwrite})
    for (int fields : {1, 3, 4}) {
      CAPTURE(static_cast<int>(op));
      CAPTURE(fields);
      const Problem p{{"n", n}, {"op", static_cast<std::int64_t>(op)}, {"fields", fields}};
      const templates::AosSoaWorkload old(n, op, fields, 11);
      const bool structs = op != AosSoaOp::write;
      const std::vector<float> soa_input =
          structs ? templates::aos_to_soa<float>(old.input(), fields, 0.0F) : old.input();
      const search::Config aos{{"layout", static_cast<std::int64_t>(templates::AosSoaLayout::aos)}};
      const search::Config soa{{"layout", static_cast<std::int64_t>(templates::AosSoaLayout::soa)}};

      // The same values in both arrangements, from one seed.
      CHECK(fill<float>(d, "in", p, aos, 11, old.input().size()) == old.input());
      CHECK(fill<float>(d, "in", p, soa, 11, soa_input.size()) == soa_input);

      check_same_reference(expected(d, p, aos, {{"in", old.input()}}), "out", old.reference(), old.tolerance());
      const auto per_field = expected(d, p, soa, {{"in", soa_input}});
      if (op == AosSoaOp::read) {
        check_same_reference(per_field, "out", old.reference(), old.tolerance());
        continue;
      }
      // One range per field array, a pitch apart.
      REQUIRE(per_field.size() == static_cast<std::size_t>(fields));
      for (int k = 0; k < fields; ++k) {
        CHECK(per_field[k].offset == k * templates::aos_soa_pitch(n));
        REQUIRE(per_field[k].values.size() == static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i)
          CHECK(per_field[k].values[static_cast<std::size_t>(i)] == old.reference()[static_cast<std::size_t>(i * fields + k)]);
        CHECK(per_field[k].tolerance.abs == old.tolerance());
      }
    }
}

TEST_CASE("fdtd description: the FdtdTemplate's spaces and launches, launch bounds from min_warps") {
  check_all_targets(templates::fdtd(), templates::fdtd_description(),
                    {{},
                     {{"nx", 1}, {"ny", 1}, {"nz", 1}, {"radius", 1}},
                     {{"nx", 31}, {"ny", 17}, {"nz", 9}},
                     {{"nx", 67}, {"ny", 35}, {"nz", 3}, {"radius", 2}},
                     {{"nx", 1000}, {"ny", 7}, {"nz", 300}, {"radius", 3}}});
}

TEST_CASE("fdtd description: coefficients and reference as the FdtdWorkload's") {
  const auto& d = templates::fdtd_description();
  const Problem p{{"nx", 9}, {"ny", 7}, {"nz", 5}, {"radius", 3}};
  const templates::FdtdWorkload old(9, 7, 5, 3, 5);
  CHECK(fill<float>(d, "memtune_fdtd_coeffs", p, {}, 6, old.coefficients().size()) == old.coefficients());
  const auto outputs = expected(d, p, {}, {{"in", old.input()}, {"memtune_fdtd_coeffs", old.coefficients()}});
  check_same_reference(outputs, "out", old.reference(), old.tolerance());
}
