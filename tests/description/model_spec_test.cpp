// A description file's "model" section (model_spec.hpp): the access pattern
// it gives the model, checked against the built-in transpose template, which
// describes the same kernel in C++; and the errors of a bad section.
#include <memtune/description/description_json.hpp>
#include <memtune/model/global_replay.hpp>
#include <memtune/model/bank_replay.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/templates/transpose.hpp>

#include "../support/catalogue_target.hpp"
#include "../thrown_message.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace memtune;

namespace {

const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

nlohmann::ordered_json asset_json() {
  std::ifstream in(kAssets / "transpose.json");
  return nlohmann::ordered_json::parse(in);
}

// The transpose asset with its model section edited by `edit`.
KernelDescription with_model(const std::function<void(nlohmann::ordered_json&)>& edit) {
  nlohmann::ordered_json j = asset_json();
  edit(j["model"]);
  return description_from_json(j, "edited.json", kAssets);
}

// What the model takes from a pattern, for comparing two of them.
struct Replayed {
  std::int64_t wavefronts, ideal_wavefronts;
  double requested, moved, l2_loads, stores, write_requests, l1_wavefronts;
};

Replayed replay(const AccessPattern& a, const Target& t) {
  const int warps = (a.block_threads + 31) / 32;
  const auto banks = model::replay_block(a.shared, warps, model::BankConfig::for_target(t, a.bank_width_bytes));
  const GlobalTraffic g = replay_global(a, warps, GlobalCaching::for_target(t, 64, 0));
  return {banks.total.wavefronts, banks.total.ideal_wavefronts, g.requested, g.moved, g.l2_load_bytes,
          g.stores_moved,          g.write_requests,             g.l1_wavefronts};
}

} // namespace

TEST_CASE("the model section of the transpose asset gives the built-in transpose template's global accesses") {
  const KernelDescription file = load_description(kAssets / "transpose.json");
  const KernelDescription& built_in = templates::transpose_description();
  REQUIRE(file.has_model());
  const Target& h100 = catalogue_target("h100");
  // Rows a multiple of 8: the template's output segments are not shifted and
  // it loads no rows above its tiles, so its global accesses are the asset's;
  // its shared tile has 8 rows more and each output row its shift, so shared
  // stores and instructions differ.
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{4096, 4096}, {1000, 777}, {24, 20}})
    for (const std::int64_t tile : {16, 32}) // square tiles; the template's 64-wide tile has 32 threads in x
      for (const std::int64_t block_rows : {2, 8, 16})
        for (const std::int64_t pad : {0, 1}) {
          if (block_rows > tile || tile * block_rows > 1024) continue;
          CAPTURE(rows);
          CAPTURE(tile);
          CAPTURE(block_rows);
          CAPTURE(pad);
          const AccessPattern a = file.access_pattern({{"TILE", tile}, {"ROWS", block_rows}, {"PAD", pad}},
                                                      {{"rows", rows}, {"cols", cols}}, h100);
          const AccessPattern b = built_in.hooks.access_pattern(
              {{"tile", tile}, {"tile_rows", tile}, {"block_rows", block_rows}, {"pad", pad}},
              {{"rows", rows}, {"cols", cols}}, h100);
          CHECK(a.block_threads == b.block_threads);
          CHECK(a.blocks == b.blocks);
          CHECK(a.loads_in_flight_per_thread == b.loads_in_flight_per_thread);
          CHECK(a.barrier_between_load_and_compute == b.barrier_between_load_and_compute);
          const Replayed x = replay(a, h100), y = replay(b, h100);
          CHECK(x.requested == y.requested);
          CHECK(x.moved == y.moved);
          CHECK(x.l2_loads == y.l2_loads);
          CHECK(x.stores == y.stores);
          CHECK(x.write_requests == y.write_requests);
          CHECK(x.l1_wavefronts == y.l1_wavefronts);
          // Whole-launch traffic: the file's is the middle block's times the
          // blocks, the template's the exact sum over tiles; equal where
          // every tile is whole.
          REQUIRE(a.arrays.size() == 2);
          REQUIRE(b.arrays.size() == 2);
          for (int i = 0; i < 2; ++i) {
            const auto& fa = a.arrays[static_cast<std::size_t>(i) == 0 ? 0 : 1];
            const auto& tb = b.arrays[fa.name == "in" ? 0 : 1];
            CHECK(fa.written == tb.written);
            CHECK(fa.footprint_bytes <= tb.footprint_bytes);
            if (rows % tile == 0 && cols % tile == 0) CHECK(fa.requested_bytes == doctest::Approx(tb.requested_bytes));
          }
        }
}

TEST_CASE("the model section ranks the padded tile above the conflicting one, as the template does") {
  const KernelDescription file = load_description(kAssets / "transpose.json");
  const Target& h100 = catalogue_target("h100");
  const Problem p{{"rows", 4096}, {"cols", 4096}};
  const auto time = [&](std::int64_t pad) {
    Evaluation e;
    e.config = {{"TILE", 32}, {"ROWS", 8}, {"PAD", pad}};
    e.resources.registers = 30;
    e.resources.static_smem_bytes = static_cast<std::size_t>(32 * (32 + pad) * 4);
    predict_candidate(e, file, p, h100, file.bytes_moved(p));
    REQUIRE(e.model);
    return e.model->time.seconds;
  };
  CHECK(time(1) < time(0));
}

TEST_CASE("a model section survives the JSON round trip, and does not change the fingerprint") {
  const KernelDescription d = load_description(kAssets / "transpose.json");
  const KernelDescription back = description_from_json(d.to_json(), "round-trip.json", kAssets);
  REQUIRE(back.model);
  CHECK(back.to_json() == d.to_json());
  nlohmann::ordered_json without = asset_json();
  without.erase("model");
  const KernelDescription bare = description_from_json(without, "bare.json", kAssets);
  CHECK_FALSE(bare.has_model());
  CHECK(bare.fingerprint() == d.fingerprint()); // a journal of the kernel resumes after a model is added
}

TEST_CASE("a bad model section is an error that names the field") {
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["global"][0]["buffer"] = "rows"; }); }) ==
        "edited.json: field 'model.global[0].buffer': 'rows' is not a buffer argument");
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["global"][0]["index"] = "y * colz + x"; }); })
            .starts_with("edited.json: field 'model.global[0].index': unknown name 'colz'"));
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["global"][0]["iterations"] = "threadIdx.x"; }); })
            == "edited.json: field 'model.global[0].iterations': reads 'threadIdx.x', which differs between threads; "
               "this field is one value for the block");
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["loads_in_flight"] = "r"; }); }) ==
        "edited.json: field 'model.loads_in_flight': reads 'r', which differs between threads; this field is one "
        "value for the block");
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["global"][0]["access"] = "atomic"; }); })
            .starts_with("edited.json: field 'model.global[0].access': 'atomic' is not an access"));
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["shared"][0]["cache"] = "read_only"; }); })
            .starts_with("edited.json: field 'model.shared[0].cache': unknown field"));
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["global"][1]["cache"] = "read_only"; }); }) ==
        "edited.json: field 'model.global[1].cache': only a load chooses its cache");
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m["locals"]["TILE"] = "1"; }); }) ==
        "edited.json: field 'model.locals.TILE': 'TILE' is already a tunable parameter");
  CHECK(thrown_message<DescriptionError>([] { with_model([](auto& m) { m = nlohmann::ordered_json::object(); }); }) ==
        "edited.json: field 'model': no access: list the kernel's global (and shared) accesses");

  // Errors only a configuration shows: where and for which thread.
  const Target& h100 = catalogue_target("h100");
  const search::Config c{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}};
  const Problem p{{"rows", 1024}, {"cols", 1024}};
  const KernelDescription negative = with_model([](auto& m) { m["global"][0]["index"] = "x - 1000"; });
  CHECK(thrown_message<DescriptionError>([&] { (void)replay(negative.access_pattern(c, p, h100), h100); }) ==
        "edited.json: field 'model.global[0].index': thread (0, 0, 0) iteration 0: index -488 is negative (guard the access "
        "with \"if\")");
  const KernelDescription misaligned = with_model([](auto& m) { m["global"][0]["vector"] = 4; });
  CHECK(thrown_message<DescriptionError>([&] { (void)replay(misaligned.access_pattern(c, p, h100), h100); }) ==
        "edited.json: field 'model.global[0].index': thread (1, 0, 0) iteration 0: byte offset 2099204 is not aligned to "
        "the 16-byte access (a misaligned address fault on the GPU)");
  const KernelDescription eight_byte_banks = with_model([](auto& m) { m["bank_bytes"] = 8; });
  CHECK(thrown_message<DescriptionError>([&] { (void)eight_byte_banks.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.bank_bytes': 8-byte banks: h100-sxm has 4-byte banks");
  CHECK(eight_byte_banks.access_pattern(c, p, catalogue_target("k20")).bank_width_bytes == 8);
  const KernelDescription huge = with_model([](auto& m) { m["global"][0]["vector"] = "4611686018427387904"; });
  CHECK(thrown_message<DescriptionError>([&] { (void)huge.access_pattern(c, p, h100); })
            .starts_with("edited.json: field 'model.global[0].vector': 4611686018427387904 elements of 4 bytes"));
  const KernelDescription long_vector = with_model([](auto& m) { m["global"][0]["vector"] = 32; });
  CHECK(thrown_message<DescriptionError>([&] { (void)long_vector.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.global[0].vector': 32 elements of 4 bytes in one access; one instruction moves 1, 2, "
        "4, 8 or 16 bytes");
  // A shared access's element size is its own field, shown as written.
  const KernelDescription huge_element = with_model([](auto& m) { m["shared"][0]["element_bytes"] = "4G"; });
  CHECK(thrown_message<DescriptionError>([&] { (void)huge_element.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.shared[0].element_bytes': 4294967296-byte elements: an element is 1, 2, 4, 8 or 16 "
        "bytes");
  const KernelDescription wide_shared = with_model([](auto& m) {
    m["shared"][0]["element_bytes"] = 8;
    m["shared"][0]["vector"] = 4;
  });
  CHECK(thrown_message<DescriptionError>([&] { (void)wide_shared.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.shared[0].vector': 4 elements of 8 bytes is a 32-byte access; one instruction moves "
        "1, 2, 4, 8 or 16 bytes");
  // Instructions a thread issues: none or more, never a negative time.
  for (const char* compute : {"-5", "0 - TILE"}) {
    const KernelDescription negative_compute = with_model([&](auto& m) { m["compute_per_thread"] = compute; });
    CHECK(thrown_message<DescriptionError>([&] { (void)negative_compute.access_pattern(c, p, h100); })
              .starts_with("edited.json: field 'model.compute_per_thread': -"));
  }
  const KernelDescription minus_five = with_model([](auto& m) { m["compute_per_thread"] = -5; });
  CHECK(thrown_message<DescriptionError>([&] { (void)minus_five.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.compute_per_thread': -5 instructions: must be >= 0 (what a thread issues besides its "
        "accesses)");
  const KernelDescription wide = with_model([](auto& m) { m["global"][0]["vector"] = 8; });
  CHECK(thrown_message<DescriptionError>([&] { (void)wide.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.global[0].vector': 8 elements of 4 bytes is a 32-byte access; one instruction moves 1, 2, "
        "4, 8 or 16 bytes");
}

TEST_CASE("the model section refuses an access past its buffer's end and a loop no kernel runs") {
  const Target& h100 = catalogue_target("h100");
  const search::Config c{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}};
  const Problem p{{"rows", 1024}, {"cols", 1024}};
  const KernelDescription past_end = with_model([](auto& m) { m["global"][0]["index"] = "y * cols + x + rows * cols"; });
  const std::string what = thrown_message<DescriptionError>([&] { (void)replay(past_end.access_pattern(c, p, h100), h100); });
  CHECK(what.starts_with("edited.json: field 'model.global[0].index': thread ("));
  CHECK(what.find("is past the end of the buffer 'in' (1048576 elements; guard the access with \"if\")") !=
        std::string::npos);
  // The last element is in.
  const KernelDescription last = with_model([](auto& m) { m["global"][0]["index"] = "rows * cols - 1"; });
  CHECK_NOTHROW((void)replay(last.access_pattern(c, p, h100), h100));

  const KernelDescription endless = with_model([](auto& m) { m["global"][0]["iterations"] = "1G * 1K"; });
  CHECK(thrown_message<DescriptionError>([&] { (void)endless.access_pattern(c, p, h100); }) ==
        "edited.json: field 'model.global[0].iterations': 1099511627776 iterations per thread: more than 1073741824");
}

