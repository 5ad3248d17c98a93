#include <memtune/compile/compile_pool.hpp>
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/output/tuning_result.hpp>

#include "../support/test_target.hpp"


#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <future>
#include <iostream>
#include <map>
#include <set>

using namespace memtune;
using templates::MatvecKernel;
using templates::MatvecLayout;
using templates::MatvecXStage;

namespace {
Target target_for(int cc, int sms) {
  Target t = test_target(cc, 227 * 1024);
  t.sm_count = sms;
  return t;
}
Target h100_like() { return target_for(90, 132); }

Problem problem(std::int64_t rows, std::int64_t cols, MatvecLayout layout) {
  return {{"rows", rows}, {"cols", cols}, {"layout", static_cast<std::int64_t>(layout)}};
}
constexpr MatvecLayout kLayouts[] = {MatvecLayout::col, MatvecLayout::row};
std::int64_t kernel(MatvecKernel k) { return static_cast<std::int64_t>(k); }

// The test's own arithmetic, against the description's: the widest vector
// that keeps a column (col-major) or a row (row-major) aligned, and the most
// column splits (each at least 64 columns, at most 64 splits).
std::int64_t widest_vec(MatvecLayout layout, std::int64_t rows, std::int64_t cols) {
  const std::int64_t along = layout == MatvecLayout::col ? rows : cols;
  return along % 4 == 0 ? 4 : along % 2 == 0 ? 2 : 1;
}
std::int64_t most_splits(std::int64_t cols) { return std::min<std::int64_t>(64, std::max<std::int64_t>(1, cols / 64)); }

search::Config stream(std::int64_t block, std::int64_t tpr, std::int64_t vec, std::int64_t unroll, std::int64_t splits,
                      MatvecXStage x = MatvecXStage::ldg, std::int64_t prefetch = 0) {
  return {{"kernel", kernel(MatvecKernel::stream)}, {"block_size", block}, {"threads_per_row", tpr}, {"vec", vec},
          {"unroll", unroll}, {"prefetch", prefetch}, {"x_stage", static_cast<std::int64_t>(x)}, {"pad", 0},
          {"splits", splits}, {"hint", 0}};
}
search::Config tiled(std::int64_t tile, std::int64_t pad, std::int64_t splits) {
  return {{"kernel", kernel(MatvecKernel::tiled)}, {"block_size", tile}, {"threads_per_row", 1}, {"vec", 1},
          {"unroll", 1}, {"prefetch", 0}, {"x_stage", static_cast<std::int64_t>(MatvecXStage::smem)}, {"pad", pad},
          {"splits", splits}, {"hint", 0}};
}

model::WarpAccess warp_access(const GlobalInstruction& g, int warp, std::int64_t it) {
  return model::WarpAccess::from_function([&](int lane) { return g.address(warp, lane, it); }, g.width_bytes, g.kind);
}

// Naive y = A x in double, A(i, j) read by the layout's formula.
std::vector<double> naive(MatvecLayout layout, std::int64_t m, std::int64_t n, const std::vector<float>& a,
                          const std::vector<float>& x) {
  std::vector<double> y(static_cast<std::size_t>(m), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t idx = static_cast<std::size_t>(layout == MatvecLayout::col ? i + j * m : i * n + j);
      y[static_cast<std::size_t>(i)] += static_cast<double>(a[idx]) * static_cast<double>(x[static_cast<std::size_t>(j)]);
    }
  return y;
}
} // namespace

TEST_CASE("matvec is in the catalogue, with its problem parameters and the cublas baseline") {
  CHECK(&templates::find_description("matvec") == &templates::matvec_description());
  const auto params = templates::matvec_description().problem;
  REQUIRE(params.size() == 3);
  CHECK(params[0].name == "rows");
  CHECK(params[1].name == "cols");
  CHECK(params[2].name == "layout");
  CHECK(params[2].labels == std::vector<std::string>{"col", "row"});
  const Problem p = complete_problem(params, {});
  CHECK(p.at("rows") == 8192);
  CHECK(p.at("cols") == 8192);
  CHECK(p.at("layout") == 0);
  CHECK_THROWS_AS(complete_problem(params, {{"rows", 0}}), std::invalid_argument);
  CHECK(templates::matvec_description().baseline_names() == std::vector<std::string>{"cublas"});
  CHECK_NOTHROW(templates::matvec_description().check_baseline_names({"cublas"}));
  try {
    templates::matvec_description().check_baseline_names({"magma"});
    FAIL("an unknown baseline must throw");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("unknown baseline 'magma' for matvec (known: cublas)") != std::string::npos);
  }
  try {
    templates::find_description("filter").check_baseline_names({"cublas"});
    FAIL("filter has no baselines");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("it has none") != std::string::npos);
  }
}

TEST_CASE("matvec derived values: chunk, max splits, max vec, tile rows") {
  const auto& t = templates::matvec_description();
  // The description's values for a configuration of the stream kernel (the
  // derived values that read the problem only do not depend on it).
  const auto env = [&](std::int64_t rows, std::int64_t cols, MatvecLayout layout, search::Config c = {}) {
    return t.environment(c, problem(rows, cols, layout), h100_like());
  };
  const auto with = [](std::int64_t kernel_index, std::int64_t block, std::int64_t tpr, std::int64_t vec,
                       std::int64_t splits) {
    return search::Config{{"kernel", kernel_index}, {"block_size", block}, {"threads_per_row", tpr}, {"vec", vec},
                          {"unroll", 1}, {"prefetch", 0}, {"x_stage", 0}, {"pad", 0}, {"splits", splits}, {"hint", 0}};
  };
  const std::int64_t stream = kernel(MatvecKernel::stream), tiled = kernel(MatvecKernel::tiled);
  CHECK(env(64, 8192, MatvecLayout::col, with(stream, 256, 4, 4, 16)).at("chunk") == 512);
  CHECK(env(64, 17, MatvecLayout::col, with(stream, 256, 4, 4, 4)).at("chunk") == 8);
  CHECK(env(64, 1, MatvecLayout::col, with(stream, 256, 4, 4, 1)).at("chunk") == 4);
  CHECK(env(64, 8191, MatvecLayout::col, with(stream, 256, 4, 4, 64)).at("chunk") == 128);
  CHECK(env(64, 1, MatvecLayout::col).at("max_splits") == 1);
  CHECK(env(64, 127, MatvecLayout::col).at("max_splits") == 1);
  CHECK(env(64, 128, MatvecLayout::col).at("max_splits") == 2);
  CHECK(env(64, 8192, MatvecLayout::col).at("max_splits") == 64);
  CHECK(env(64, 1 << 20, MatvecLayout::col).at("max_splits") == 64);
  CHECK(env(8192, 3, MatvecLayout::col).at("max_vec") == 4);
  CHECK(env(1000003, 8192, MatvecLayout::col).at("max_vec") == 1);
  CHECK(env(30, 8192, MatvecLayout::col).at("max_vec") == 2);
  CHECK(env(8192, 17, MatvecLayout::row).at("max_vec") == 1);
  CHECK(env(3, 8192, MatvecLayout::row).at("max_vec") == 4);
  CHECK(env(64, 64, MatvecLayout::col, with(stream, 256, 4, 4, 1)).at("tile_rows") == 256);
  CHECK(env(64, 64, MatvecLayout::row, with(stream, 256, 32, 4, 1)).at("tile_rows") == 8);
  CHECK(env(64, 64, MatvecLayout::row, with(tiled, 32, 1, 1, 1)).at("tile_rows") == 32);
  // Every split's columns start on a multiple of 4 and the splits cover the columns.
  for (std::int64_t n : {1LL, 3LL, 17LL, 64LL, 1000LL, 8191LL}) {
    for (std::int64_t s : templates::matvec_split_values()) {
      if (s > env(64, n, MatvecLayout::col).at("max_splits")) continue;
      const std::int64_t chunk = env(64, n, MatvecLayout::col, with(stream, 256, 4, 4, s)).at("chunk");
      CHECK(chunk % 4 == 0);
      CHECK(chunk * s >= n);
    }
  }
}

TEST_CASE("matvec space: axes, pruned combinations with reasons, default config") {
  const auto& t = templates::matvec_description();
  for (MatvecLayout layout : kLayouts) {
    for (auto [m, n] : {std::pair{8192LL, 8192LL}, {1LL, 1LL}, {31LL, 17LL}, {1000003LL, 3LL}, {3LL, 1000003LL},
                        {1000LL, 4098LL}, {4096LL, 1000LL}}) {
      CAPTURE(static_cast<int>(layout));
      CAPTURE(m);
      CAPTURE(n);
      const Problem p = problem(m, n, layout);
      const search::Space s = t.space(p, h100_like());
      REQUIRE(s.axes().size() == 10);
      const auto all = s.enumerate();
      CHECK(!all.empty());
      CHECK(all.size() <= 450); // a few hundred at most
      CHECK(s.is_valid(t.default_config(p, h100_like())));
      std::set<std::int64_t> kernels;
      for (const auto& c : all) {
        kernels.insert(c.at("kernel"));
        const bool is_tiled = c.at("kernel") == kernel(MatvecKernel::tiled);
        if (c.at("kernel") == kernel(MatvecKernel::col)) {
          CHECK(layout == MatvecLayout::col);
          CHECK(c.at("threads_per_row") == 4);
          CHECK(c.at("unroll") <= 4);
        } else {
          CHECK(c.at("hint") == 0);
        }
        if (is_tiled) {
          CHECK(c.at("block_size") <= 64);
          CHECK(c.at("threads_per_row") == 1);
          CHECK(c.at("vec") == 1);
          CHECK(c.at("unroll") == 1);
          CHECK(c.at("prefetch") == 0);
          CHECK(c.at("x_stage") == static_cast<std::int64_t>(MatvecXStage::smem));
        } else {
          CHECK(c.at("block_size") >= 128);
          CHECK(c.at("pad") == 0);
          if (layout == MatvecLayout::col) {
            CHECK(c.at("block_size") / c.at("threads_per_row") >= 32);
            CHECK(c.at("x_stage") == static_cast<std::int64_t>(MatvecXStage::ldg));
            CHECK(m % c.at("vec") == 0);
            CHECK((c.at("vec") == 1 || c.at("vec") == widest_vec(layout, m, n)));
          } else {
            CHECK(c.at("threads_per_row") >= 4);
            CHECK(n % c.at("vec") == 0);
            CHECK((c.at("vec") == 1 || c.at("vec") == widest_vec(layout, m, n)));
          }
        }
        CHECK(c.at("splits") <= most_splits(n));
      }
      // stream and tiled at every size, col for column-major A where a warp fits along the rows
      CAPTURE(kernels.size());
      CHECK(kernels.size() >= 2);
      if (layout == MatvecLayout::row) CHECK(kernels.size() == 2);
    }
  }
  // The configurations that should reach the copy ceiling at 8192 x 8192 are there.
  const search::Space col = t.space(problem(8192, 8192, MatvecLayout::col), h100_like());
  CHECK(col.is_valid(stream(256, 4, 4, 8, 16)));
  CHECK(col.is_valid(stream(256, 1, 4, 8, 64)));
  CHECK(col.is_valid(tiled(32, 1, 1)));
  CHECK(col.is_valid(tiled(64, 0, 4)));
  const search::Space row = t.space(problem(8192, 8192, MatvecLayout::row), h100_like());
  CHECK(row.is_valid(stream(256, 32, 4, 4, 1)));
  CHECK(row.is_valid(stream(256, 128, 4, 4, 1, MatvecXStage::smem)));
  CHECK(row.is_valid(stream(256, 4, 4, 4, 4)));
  CHECK(row.is_valid(stream(128, 32, 4, 8, 1, MatvecXStage::ldg, 1)));
  std::cout << "matvec space at 8192 x 8192 on 132 SMs: col " << col.enumerate().size() << " of "
            << col.cross_product_size() << ", row " << row.enumerate().size() << " of " << row.cross_product_size() << "\n";

  // Pruned, with the reason stated.
  auto why = [](const search::Space& s, const search::Config& c) {
    const auto v = s.violation(c);
    return v ? *v : std::string{};
  };
  CHECK(why(col, stream(256, 4, 4, 4, 1, MatvecXStage::smem)).find("broadcast") != std::string::npos);
  CHECK(why(row, stream(256, 1, 4, 4, 1)).find("uncoalesced") != std::string::npos);
  CHECK(why(col, stream(256, 1, 4, 8, 64)).empty());
  // 128 row tiles x 15 x 256 threads > one wave of 2048 threads on 132 SMs.
  CHECK(why(col, stream(256, 4, 1, 8, 16)).find("one wave") != std::string::npos);
  CHECK(why(col, stream(256, 4, 2, 8, 1)).find("widest aligned vector") != std::string::npos);
  CHECK(why(col, stream(256, 4, 4, 8, 16)).empty()); // 256 rows per block: 32 tiles x 15 x 256 threads fit
  CHECK(why(row, stream(256, 128, 4, 8, 4)).find("run past") != std::string::npos);
  const search::Space odd = t.space(problem(1000003, 3, MatvecLayout::col), h100_like());
  CHECK(why(odd, stream(256, 1, 4, 4, 1)).find("multiple of vec") != std::string::npos);
  CHECK(why(odd, stream(256, 1, 1, 4, 4)).find("at least 64 columns") != std::string::npos);
  CHECK(why(col, tiled(128, 1, 1)).find("32 or 64 wide") != std::string::npos);
  search::Config tiled_vec = tiled(32, 1, 1);
  tiled_vec.set("vec", 4);
  CHECK(why(col, tiled_vec).find("blog's") != std::string::npos);
  search::Config stream_pad = stream(256, 4, 4, 4, 1);
  stream_pad.set("pad", 1);
  CHECK(why(col, stream_pad).find("padding") != std::string::npos);
  // Fewer SMs, fewer splits.
  const search::Space k20ish = t.space(problem(8192, 8192, MatvecLayout::col), target_for(35, 13));
  CHECK(k20ish.enumerate().size() < col.enumerate().size());
}

TEST_CASE("matvec launch: the grid covers every row and split, names the kernel") {
  const auto& t = templates::matvec_description();
  for (MatvecLayout layout : kLayouts) {
    for (auto [m, n] : {std::pair{1LL, 1LL}, {31LL, 17LL}, {1000LL, 4098LL}, {8192LL, 8192LL}}) {
      const Problem p = problem(m, n, layout);
      for (const auto& c : t.space(p, h100_like()).enumerate()) {
        const LaunchSpec l = t.launch(c, p, h100_like());
        // Rows per block (ROWS in matvec.cu): tiled block_size, stream and col block_size / threads_per_row
        // threads along the rows, vec rows each when column-major.
        const std::int64_t rows_per_block =
            c.at("kernel") == kernel(MatvecKernel::tiled) ? c.at("block_size")
            : layout == MatvecLayout::col                 ? c.at("block_size") * c.at("vec") / c.at("threads_per_row")
                                                          : c.at("block_size") / c.at("threads_per_row");
        CHECK(static_cast<std::int64_t>(l.grid.x) * rows_per_block >= m);
        CHECK(static_cast<std::int64_t>(l.grid.x - 1) * rows_per_block < m);
        CHECK(l.grid.y == static_cast<unsigned>(c.at("splits")));
        CHECK(l.block.x == static_cast<unsigned>(c.at("block_size")));
        CHECK(l.dynamic_smem_bytes == 0U);
        if (c.at("kernel") == kernel(MatvecKernel::col)) { // column-major only: no layout parameter
          CHECK(l.name_expression == "matvec_col<" + std::to_string(c.at("block_size")) + ", " +
                                         std::to_string(c.at("threads_per_row")) + ", " + std::to_string(c.at("vec")) +
                                         ", " + std::to_string(c.at("unroll")) + ", " + std::to_string(c.at("hint")) + ">");
          continue;
        }
        const std::string prefix = c.at("kernel") == kernel(MatvecKernel::tiled) ? "matvec_tiled<" : "matvec_stream<";
        CHECK(l.name_expression.rfind(prefix + std::to_string(static_cast<int>(layout)) + ", ", 0) == 0);
      }
    }
  }
  const Problem p = problem(8192, 8192, MatvecLayout::col);
  CHECK(t.launch(stream(256, 4, 4, 8, 16), p, h100_like()).name_expression == "matvec_stream<0, 256, 4, 4, 8, 0, 0>");
  CHECK(t.launch(tiled(32, 1, 1), p, h100_like()).name_expression == "matvec_tiled<0, 32, 1>");
  CHECK(t.launch(stream(256, 4, 4, 8, 16), p, h100_like()).grid.x == 32U); // 256 rows per block
}

TEST_CASE("matvec bytes moved: A, x and y once") {
  CHECK(templates::matvec_description().bytes_moved(problem(8192, 8192, MatvecLayout::col)) == (8192ULL * 8192 + 8192 + 8192) * 4);
  CHECK(templates::matvec_description().bytes_moved(problem(31, 17, MatvecLayout::row)) == (31ULL * 17 + 17 + 31) * 4);
}

TEST_CASE("matvec reference matches a naive loop on small odd sizes, both layouts") {
  for (MatvecLayout layout : kLayouts) {
    for (auto [m, n] : {std::pair{1LL, 1LL}, {31LL, 17LL}, {3LL, 1001LL}, {257LL, 5LL}}) {
      CAPTURE(static_cast<int>(layout));
      CAPTURE(m);
      CAPTURE(n);
      std::vector<float> a(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 1000) / 997.0F - 0.4F;
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 104729) % 1000) / 991.0F - 0.5F;
      const auto y = templates::matvec_reference(layout, m, n, a, x);
      const auto expected = naive(layout, m, n, a, x);
      REQUIRE(y.size() == static_cast<std::size_t>(m));
      bool all_ok = true;
      for (std::size_t i = 0; i < y.size(); ++i) all_ok &= std::fabs(y[i] - expected[i]) <= 1e-12 * (1 + std::fabs(expected[i]));
      CHECK(all_ok);
      const double tol = templates::matvec_tolerance(layout, m, n, a, x);
      CHECK(tol > 0);
      CHECK(tol < 4.0 * FLT_EPSILON * static_cast<double>(n) + 1e-29); // |a x| <= 1
    }
  }
  // An fp32 sequential sum of 8192 products stays well inside the tolerance,
  // and a dropped product of typical size does not.
  const std::int64_t n = 8192;
  std::vector<float> a(n), x(n);
  for (std::int64_t j = 0; j < n; ++j) {
    a[j] = (j % 3 == 0 ? -1.0F : 1.0F) * (0.01F + 0.99F * static_cast<float>((j * 7919) % 1000) / 1000.0F);
    x[j] = (j % 5 < 2 ? -1.0F : 1.0F) * (0.01F + 0.99F * static_cast<float>((j * 104729) % 1000) / 1000.0F);
  }
  const auto ref = templates::matvec_reference(MatvecLayout::row, 1, n, a, x);
  float sum = 0.0F;
  for (std::int64_t j = 0; j < n; ++j) sum = std::fma(a[j], x[j], sum);
  const double tol = templates::matvec_tolerance(MatvecLayout::row, 1, n, a, x);
  CHECK(std::fabs(sum - ref[0]) < tol / 4);
  CHECK(std::fabs(static_cast<double>(a[100]) * x[100]) > tol);
  CHECK_THROWS_AS(templates::matvec_reference(MatvecLayout::col, 2, 2, std::vector<float>(3), std::vector<float>(2)),
                  std::invalid_argument);
}

TEST_CASE("matvec access pattern: coalescing, conflicts of the blog's tile, traffic") {
  const auto& t = templates::matvec_description();
  const Target h100 = h100_like();
  {  // col-major stream, float4 along a column: a warp reads 512 contiguous bytes.
    const Problem p = problem(8192, 8192, MatvecLayout::col);
    const AccessPattern a = t.hooks.access_pattern(stream(256, 4, 4, 8, 16), p, h100);
    REQUIRE(a.global.size() >= 3);
    CHECK(a.global[0].width_bytes == 16);
    const auto ga = model::analyze_global(warp_access(a.global[0], 0, 0));
    CHECK(ga.sectors == 16);
    CHECK(ga.efficiency == doctest::Approx(1.0));
    CHECK(a.blocks == 32 * 16);
    // The batch of unroll loads is issued whole before its FMAs (sm_90 SASS,
    // matvec_access.cpp); at unroll 1 ptxas keeps about two in flight.
    CHECK(a.loads_in_flight_per_thread == 8);
    CHECK(t.hooks.access_pattern(stream(256, 4, 4, 4, 16), p, h100).loads_in_flight_per_thread == 4);
    CHECK(t.hooks.access_pattern(stream(256, 4, 4, 1, 16), p, h100).loads_in_flight_per_thread == 2);
    CHECK(t.hooks.access_pattern(stream(256, 4, 4, 8, 16, MatvecXStage::ldg, 1), p, h100).loads_in_flight_per_thread == 12);
    CHECK(a.bytes_per_load == 16);
    REQUIRE(a.arrays.size() == 4); // A, x, y, partial sums
    CHECK(a.arrays[0].requested_bytes == doctest::Approx(a.arrays[0].footprint_bytes));
    CHECK(a.arrays[0].footprint_bytes == doctest::Approx(8192.0 * 8192 * 4));
    CHECK(model::replay_block(a.shared, 8, model::BankConfig::fixed_4byte()).total.conflicts() == 0);
  }
  {  // row-major stream, 4 threads per row, float4: 64 contiguous bytes per row, 8 rows per warp.
    const Problem p = problem(8192, 8192, MatvecLayout::row);
    const AccessPattern a = t.hooks.access_pattern(stream(256, 4, 4, 4, 1), p, h100);
    const auto ga = model::analyze_global(warp_access(a.global[0], 1, 3));
    CHECK(ga.sectors == 16);
    CHECK(ga.efficiency == doctest::Approx(1.0));
    REQUIRE(a.arrays.size() == 3);
  }
  for (MatvecLayout layout : kLayouts) {  // the blog's tile: 32-way conflicts without the pad, none with it
    CAPTURE(static_cast<int>(layout));
    const Problem p = problem(4096, 4096, layout);
    const auto conflicts = [&](std::int64_t pad) {
      const AccessPattern a = t.hooks.access_pattern(tiled(32, pad, 1), p, h100);
      return model::replay_block(a.shared, 1, model::BankConfig::fixed_4byte());
    };
    const auto unpadded = conflicts(0), padded = conflicts(1);
    CHECK(padded.total.conflicts() == 0);
    CHECK(unpadded.total.conflicts() > 0);
    int worst = 0;
    for (const auto& i : unpadded.per_instruction) worst = std::max(worst, i.worst_ways);
    CHECK(worst == 32);
    const AccessPattern a = t.hooks.access_pattern(tiled(32, 1, 1), p, h100);
    CHECK(model::analyze_global(warp_access(a.global[0], 0, 5)).efficiency == doctest::Approx(1.0));
  }
  // Every access of every configuration is aligned to its width (the hardware faults otherwise).
  for (MatvecLayout layout : kLayouts) {
    for (auto [m, n] : {std::pair{31LL, 17LL}, {1000LL, 4098LL}, {4096LL, 256LL}}) {
      const Problem p = problem(m, n, layout);
      const search::Space s = t.space(p, h100);
      for (const auto& c : s.enumerate()) {
        CAPTURE(s.format(c));
        const AccessPattern a = t.hooks.access_pattern(c, p, h100);
        bool aligned = true;
        for (const auto& g : a.global)
          for (int w = 0; w < a.block_threads / 32; ++w)
            for (std::int64_t it = 0; it < std::min<std::int64_t>(g.iterations, 3); ++it) {
              try {
                model::check_warp_access(warp_access(g, w, it));
              } catch (const std::invalid_argument&) {
                aligned = false;
              }
            }
        CHECK(aligned);
        for (const auto& arr : a.arrays) CHECK(arr.requested_bytes >= arr.footprint_bytes);
      }
    }
  }
}

TEST_CASE("matvec note: what the blog's kernel and its padding cost") {
  const Problem p = problem(8192, 8192, MatvecLayout::col);
  const std::string note = templates::matvec_note(p, {{"stream", 90e-6}, {"tiled pad=0", 900e-6}, {"tiled pad=1", 420e-6}});
  CHECK(note.find("stream is 4.7x faster than the blog's tiled kernel") == 0);
  CHECK(note.find("pad=1") != std::string::npos);
  CHECK(note.find("(2.1x)") != std::string::npos);
  CHECK(templates::matvec_note(p, {}).empty());
  TuningResult r;
  r.problem = p;
  r.space = templates::matvec_description().space(p, h100_like());
  auto eval = [&](const search::Config& c, double seconds) {
    Evaluation e;
    e.config = c;
    Timing timing;
    timing.median_s = seconds;
    e.timing = timing;
    return e;
  };
  r.evaluations = {eval(stream(256, 4, 4, 8, 16), 90e-6), eval(tiled(32, 1, 1), 400e-6)};
  CHECK(templates::matvec_description().hooks.explain(r).find("4.4x") != std::string::npos);
  r.evaluations = {eval(stream(256, 4, 4, 8, 16), 90e-6)};
  CHECK(templates::matvec_description().hooks.explain(r).empty());
}

TEST_CASE("every matvec candidate compiles for sm_90, without local memory") {
  const auto& t = templates::matvec_description();
  // Candidates that differ only in splits share a binary (the split count is
  // gridDim.y): compile each distinct kernel once, over both layouts and
  // sizes that open every vector width.
  CompilePool pool(nullptr);
  struct Job {
    std::string what;
    std::future<CompileResult> result;
  };
  std::vector<Job> jobs;
  std::set<std::string> seen;
  for (MatvecLayout layout : kLayouts) {
    for (auto [m, n] : {std::pair{8192LL, 8192LL}, {1000003LL, 3LL}, {3LL, 1000003LL}}) {
      const Problem p = problem(m, n, layout);
      const search::Space space = t.space(p, h100_like());
      for (const auto& c : space.enumerate()) {
        const LaunchSpec l = t.launch(c, p, h100_like());
        if (!seen.insert(l.name_expression).second) continue;
        jobs.push_back({format_problem(p) + " " + space.format(c), pool.submit(t.compile_request(l, 90))});
      }
    }
  }
  MESSAGE(jobs.size() << " distinct matvec kernels");
  CHECK(jobs.size() > 100U);
  for (auto& j : jobs) {
    CAPTURE(j.what);
    const CompileResult r = j.result.get();
    CHECK_MESSAGE(r.ok, r.log);
    CHECK(r.lowered_name.find("matvec_") != std::string::npos);
    if (j.what.find("kernel=col") != std::string::npos) CHECK(r.lowered_name.find("matvec_col") != std::string::npos);
    CHECK(r.resources.registers > 0);
    // ptxas spills a few index registers in the prologue and epilogue of
    // two small configurations (row-major, unroll 1: seen in the sm_90 SASS,
    // none inside the column loop) to stay at a register count of its
    // choosing; the accumulators and loaded data never spill.
    CHECK(r.resources.stack_frame_bytes <= 32);
    CHECK(r.resources.spill_store_bytes + r.resources.spill_load_bytes <= 64);
  }
}
