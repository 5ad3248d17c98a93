// The values of a description's arguments and launch for a problem
// (argument_values.hpp): what is refused once, before anything is compiled,
// naming the file and the field (check_arguments, check_launch, and the
// device-memory check that counts offsets), and what fails one candidate.
#include <memtune/description/argument_values.hpp>
#include <memtune/description/description_internal.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/measure/memory_fit.hpp>

#include "../support/catalogue_target.hpp"
#include "../thrown_message.hpp"
#include "description_json_support.hpp"

#include <doctest/doctest.h>

using namespace memtune;
using namespace memtune::description_detail;
using nlohmann::ordered_json;
using description_json_test::kAssets;
using description_json_test::transpose;

namespace {

// The transpose asset (rows x cols floats, TILE x ROWS threads) with `edit` applied.
KernelDescription edited(const std::function<void(ordered_json&)>& edit) {
  ordered_json j = transpose();
  edit(j);
  return description_from_json(j, "k.json", kAssets);
}

// What check_fits_memory (check_arguments, check_launch, memory) says of `d` for `problem` on an H100.
std::string refused(const KernelDescription& d, const Problem& problem = {}) {
  try {
    check_fits_memory(d, d.complete(problem), catalogue_target("h100"));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "nothing thrown";
}

} // namespace

TEST_CASE("a half or bfloat16 scalar must fit its type, as a float one must") {
  const auto half_scalar = [](const ordered_json& value, const char* type = "half") {
    return edited([&](ordered_json& j) { j["arguments"][2] = {{"name", "a"}, {"scalar", type}, {"value", value}}; });
  };
  CHECK(refused(half_scalar(70000.0)) ==
        "k.json: field 'arguments[2]': arguments[2].value (half a): 70000 does not fit in half (largest 65504)");
  CHECK(refused(half_scalar(-65504.0)) == "nothing thrown");
  CHECK(refused(half_scalar("rows")) == "nothing thrown"); // 1024
  CHECK(refused(half_scalar("rows"), {{"rows", 64 * 1024}}) ==
        "k.json: field 'arguments[2]': arguments[2].value (half a): 65536 does not fit in half (largest 65504)");
  CHECK(refused(half_scalar(1e39, "bfloat16")).ends_with("1e+39 does not fit in bfloat16 (largest 3.4e38)"));
  CHECK(refused(half_scalar(1e39, "float")).find("does not fit in float") != std::string::npos);
}

TEST_CASE("a buffer's offset is at least 0, and offset + count are what the device memory must hold") {
  CHECK(refused(edited([](ordered_json& j) { j["arguments"][1]["offset"] = "-16M"; })) ==
        "k.json: field 'arguments[1]': arguments[1].offset = -16777216 is -16777216: an offset is at least 0 (the "
        "elements in front of the kernel's pointer)");
  // 32G floats in front of 1M: 128 GiB on an 80 GiB GPU, as a count of 32G is.
  const std::string big = refused(edited([](ordered_json& j) { j["arguments"][1]["offset"] = "32G"; }));
  CHECK_MESSAGE(big.starts_with("problem cols=1024 rows=1024: its buffers need at least 128.0 GiB (137447342080 bytes) "
                                "(their elements, offsets included), and H100 SXM5 80GB has 80.0 GiB"),
                big);
  CHECK(refused(edited([](ordered_json& j) { j["arguments"][1]["offset"] = "4G * 1G"; })) ==
        "k.json: field 'arguments[1]': arguments[1].offset (in) = 4611686018427387904 and count 1048576 elements of "
        "float: more bytes than 64-bit sizes hold");
  // What the buffers take: the output's 1M floats and the input's 28 + 1M.
  const KernelDescription padded = edited([](ordered_json& j) { j["arguments"][1]["offset"] = 28; });
  CHECK(check_arguments(padded, padded.complete({}), catalogue_target("h100")) == (2 * 1048576 + 28) * 4);
  // An offset that reads a parameter is checked per configuration.
  const KernelDescription per_config = edited([](ordered_json& j) { j["arguments"][1]["offset"] = "16 - TILE"; });
  CHECK(refused(per_config) == "nothing thrown");
  const search::Config env = per_config.environment({{"TILE", 32}, {"ROWS", 8}, {"PAD", 0}}, per_config.complete({}),
                                                    catalogue_target("h100"));
  const auto& in = std::get<BufferArgument>(per_config.arguments[1]);
  CHECK(thrown_message<std::invalid_argument>([&] { (void)buffer_elements(per_config, in, env, "arguments[1]"); }) ==
        "arguments[1].offset = (16 - TILE) is -16: an offset is at least 0 (the elements in front of the kernel's pointer)");
}

TEST_CASE("a grid of more than 2^31-1 x 65535 x 65535 blocks fails: once where it reads no parameter, else per candidate") {
  const KernelDescription tall = edited([](ordered_json& j) { j["launch"]["grid"] = {"512", "1G", "1G"}; });
  CHECK(refused(tall) == "k.json: field 'launch.grid[1]': launch.grid[1] = 1073741824 is 1073741824: more than a "
                         "launch can have (at most 65535 blocks in y)");
  CHECK(refused(edited([](ordered_json& j) { j["launch"]["grid"] = {"2G", "1", "1"}; })).find(
            "field 'launch.grid[0]': launch.grid[0] = 2147483648 is 2147483648: more than a launch can have (at most "
            "2147483647 blocks in x)") != std::string::npos);
  // The largest grid there is: its block count fits in 64 bits.
  const KernelDescription largest = edited([](ordered_json& j) { j["launch"]["grid"] = {"2G - 1", "65535", "65535"}; });
  CHECK(refused(largest) == "nothing thrown");
  const LaunchSpec l = largest.launch({{"TILE", 32}, {"ROWS", 8}, {"PAD", 0}}, largest.complete({}), catalogue_target("h100"));
  CHECK(l.grid.count() == 2147483647ULL * 65535 * 65535);

  const KernelDescription per_config = edited([](ordered_json& j) { j["launch"]["grid"] = {"1", "1", "TILE * 3000"}; });
  CHECK(refused(per_config) == "nothing thrown");
  CHECK(thrown_message<std::invalid_argument>([&] {
          (void)per_config.launch({{"TILE", 32}, {"ROWS", 8}, {"PAD", 0}}, per_config.complete({}), catalogue_target("h100"));
        }) == "launch.grid[2] = (TILE * 3000) is 96000: more than a launch can have (at most 65535 blocks in z)");
}

TEST_CASE("a block beyond 1024 x 1024 x 64, and negative dynamic shared memory, say why") {
  CHECK(block_limit_violation({1024, 1, 1}) == std::nullopt);
  CHECK(block_limit_violation({1, 1, 64}) == std::nullopt);
  CHECK(block_limit_violation({1, 1, 128}) == "launch.block[2] is 128 threads: a block has at most 64 in z");
  CHECK(block_limit_violation({1, 2048, 1}) == "launch.block[1] is 2048 threads: a block has at most 1024 in y");
  CHECK(block_limit_violation({4096, 1, 1}) == "launch.block[0] is 4096 threads: a block has at most 1024 in x");
  // Where it reads no parameter, once; where it does, the candidate's (tests/tune/modeled_tuner_test.cpp).
  CHECK(refused(edited([](ordered_json& j) { j["launch"]["block"] = {"TILE", "1", "128"}; })) ==
        "k.json: field 'launch.block[2]': launch.block[2] is 128 threads: a block has at most 64 in z");
  CHECK(refused(edited([](ordered_json& j) { j["launch"]["block"] = {"1", "1", "TILE * 4"}; })) == "nothing thrown");

  CHECK(refused(edited([](ordered_json& j) { j["launch"]["shared_memory"] = "-1"; })) ==
        "k.json: field 'launch.shared_memory': launch.shared_memory = -1 is -1 bytes: dynamic shared memory must be >= 0");
  const KernelDescription per_config = edited([](ordered_json& j) { j["launch"]["shared_memory"] = "16 - TILE"; });
  CHECK(refused(per_config) == "nothing thrown");
  CHECK(thrown_message<std::invalid_argument>([&] {
          (void)per_config.launch({{"TILE", 32}, {"ROWS", 8}, {"PAD", 0}}, per_config.complete({}), catalogue_target("h100"));
        }) == "launch.shared_memory = (16 - TILE) is -16 bytes: dynamic shared memory must be >= 0");
}

TEST_CASE("a derived value that cannot be evaluated for the problem is named, not the field that reads it") {
  // At the default problem: when the file is read.
  CHECK(thrown_message<DescriptionError>([] {
          (void)edited([](ordered_json& j) { j["derived"]["half_rows"] = "rows / (rows - 1K)"; });
        }) == "k.json: field 'derived.half_rows': cannot be evaluated for the default problem: expression (rows / (rows "
              "- 1024)): division by zero");
  // At another: before anything runs.
  const KernelDescription d = edited([](ordered_json& j) { j["derived"]["half_rows"] = "rows / (rows - 2K)"; });
  CHECK(refused(d, {{"rows", 2048}}) ==
        "k.json: field 'derived.half_rows': expression (rows / (rows - 2048)): division by zero");
}
