// The configuration chain an application's launcher follows, decided without
// a GPU: MEMTUNE_CONFIG, the profile (exact, nearest size, same GPU model),
// tuning, the default. Fixture: tests/assets/profiles/launcher.memtune.json.
#include <memtune/description/description_json.hpp>
#include <memtune/launch/config_lookup.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <unistd.h>

using namespace memtune;

namespace {

const std::filesystem::path kProfiles = MEMTUNE_TEST_ASSETS_DIR "/profiles";

// The catalogue's H100 as the driver names it, with `sms` SMs.
Target h100(int sms = 132) {
  Target t = catalogue_target("h100-sxm");
  t.display_name = "NVIDIA H100 80GB HBM3";
  t.sm_count = sms;
  return t;
}

ConfigLookup filter_lookup(const Problem& given, const Target& target, const LookupEnvironment& env = {},
                           const LauncherOptions& options = {}) {
  const KernelDescription& d = templates::filter_description();
  const ProfileStore store(kProfiles / "launcher.memtune.json");
  return look_up_config(d, d.complete(given), target, &store, options, env);
}

std::string formatted(const ConfigLookup& l, const Problem& given, const Target& target) {
  const KernelDescription& d = templates::filter_description();
  return d.space(d.complete(given), target).format(l.config);
}

} // namespace

TEST_CASE("the profile's exact entry for this GPU and problem comes first") {
  const ConfigLookup l = filter_lookup({{"n", 16 << 20}}, h100());
  CHECK(l.source == ConfigLookup::Source::profile);
  CHECK(l.origin == "profile");
  CHECK(l.rationale == "exact entry at 16M");
  CHECK(formatted(l, {{"n", 16 << 20}}, h100()) == "staging=smem block_size=512 packing=2 items=4 vec=4 align=1 tiles=1 min_warps=0");
  REQUIRE(l.profile);
  CHECK(l.profile->match == ProfileMatch::exact);
}

TEST_CASE("then this GPU's entry at the nearest size, on a log scale") {
  // 3M: log(16M/3M) = 1.67 > log(3M/1M) = 1.10, so 1M; the 114-SM entry at 4M is nearer but another board.
  const ConfigLookup l = filter_lookup({{"n", 3 << 20}}, h100());
  CHECK(l.source == ConfigLookup::Source::profile);
  CHECK(l.origin == "profile (nearest size: n=1048576 taps=21)");
  CHECK(l.rationale == "entry at 1M");
  // A non-size variable must match: the 7-tap entry serves 7 taps only.
  CHECK(filter_lookup({{"n", 1 << 20}, {"taps", 7}}, h100()).rationale == "7 taps");
}

TEST_CASE("then the same GPU model (name and compute capability) with another SM count, at the nearest size") {
  const ConfigLookup l = filter_lookup({{"n", 5 << 20}}, h100(/*sms=*/66)); // a MIG-like slice: no entry of its own
  CHECK(l.source == ConfigLookup::Source::profile);
  CHECK(l.origin == "profile (same GPU model, 114 SMs: n=4194304 taps=21)");
  REQUIRE(l.profile);
  CHECK(l.profile->match == ProfileMatch::same_gpu_model);
  // Another GPU model's entries are never used.
  Target a100 = catalogue_target("a100");
  a100.display_name = "NVIDIA A100-PCIE-40GB";
  CHECK(filter_lookup({{"n", 4 << 20}}, a100).source == ConfigLookup::Source::tune);
}

TEST_CASE("an entry tuned for a catalogue target (--target h100-sxm, modeled) serves the GPU the driver names") {
  // Saved under the catalogue's display name; the driver calls the same GPU "NVIDIA H100 80GB HBM3".
  const KernelDescription& d = templates::filter_description();
  const auto file = std::filesystem::temp_directory_path() / "memtune-config-lookup-modeled.json";
  std::filesystem::remove(file);
  ProfileEntry modeled;
  modeled.device = fingerprint(catalogue_target("h100-sxm"));
  REQUIRE(modeled.device.name == "H100 SXM5 80GB");
  modeled.template_name = "filter";
  modeled.problem = d.complete({{"n", 16 << 20}});
  modeled.config = {{"staging", "direct"}, {"block_size", 128}, {"packing", 1}, {"items", 8}, {"vec", 4}, {"align", 1}};
  modeled.mode = "modeled";
  modeled.rationale = "modeled for h100-sxm";
  ProfileStore(file).save(modeled);
  const ProfileStore store(file);
  const ConfigLookup l = look_up_config(d, d.complete({{"n", 16 << 20}}), h100(), &store, {}, {});
  CHECK(l.source == ConfigLookup::Source::profile);
  CHECK(l.rationale == "modeled for h100-sxm");
  REQUIRE(l.profile);
  CHECK(l.profile->match == ProfileMatch::same_gpu_model);
  // Another model's driver name does not match it.
  Target h200 = catalogue_target("h200");
  h200.display_name = "NVIDIA H200";
  CHECK(look_up_config(d, d.complete({{"n", 16 << 20}}), h200, &store, {}, {}).source == ConfigLookup::Source::tune);
  // With a second size saved, the entry of the very size asked for is taken as it is, not interpolated to itself.
  ProfileEntry larger = modeled;
  larger.problem = d.complete({{"n", 64 << 20}});
  larger.rationale = "the larger size";
  ProfileStore(file).save(larger);
  const ConfigLookup same = look_up_config(d, d.complete({{"n", 16 << 20}}), h100(), &store, {}, {});
  CHECK(same.rationale == "modeled for h100-sxm");
  CHECK(same.origin.find("interpolated") == std::string::npos);
  CHECK(same.origin.rfind("profile (same GPU model", 0) == 0);
  std::filesystem::remove(file);
}

TEST_CASE("an entry whose configuration is not valid for this problem is passed over, and the lookup says why") {
  const KernelDescription& d = templates::matvec_description();
  const ProfileStore store(kProfiles / "launcher.memtune.json");
  // 1001 rows: float4 loads along a column are not aligned, so the 8192x8192 entry's vec=4 does not apply.
  const ConfigLookup l = look_up_config(d, d.complete({{"rows", 1001}, {"cols", 8192}}), h100(), &store, {}, {});
  CHECK(l.source == ConfigLookup::Source::tune);
  REQUIRE(l.skipped.size() == 1);
  CAPTURE(l.skipped[0]);
  CHECK(l.skipped[0].find("profile (nearest size: cols=8192 layout=col rows=8192)") == 0);
  CHECK(l.skipped[0].find("vec") != std::string::npos);
  // The same entry serves a size where it is valid.
  CHECK(look_up_config(d, d.complete({{"rows", 4096}, {"cols", 4096}}), h100(), &store, {}, {}).source ==
        ConfigLookup::Source::profile);
}

TEST_CASE("an entry tuned for another version of the kernel is used, and the lookup says so") {
  const KernelDescription& d = templates::filter_description();
  const Problem problem = d.complete({{"n", 1 << 20}});
  const auto file = std::filesystem::temp_directory_path() / ("memtune-version-" + std::to_string(getpid()) + ".json");
  std::filesystem::remove(file);
  ProfileStore store(file);
  ProfileEntry e = ProfileStore(kProfiles / "launcher.memtune.json").entries().front();
  e.device = fingerprint(h100());
  e.problem = problem;
  auto lookup_with = [&](const std::string& kernel_fingerprint) {
    e.kernel_fingerprint = kernel_fingerprint;
    store.save(e);
    return look_up_config(d, problem, h100(), &store, {}, {});
  };
  // Saved by this kernel, or before memtune recorded the version: nothing to say.
  CHECK(lookup_with(d.fingerprint()).notes.empty());
  CHECK(lookup_with("").notes.empty());
  const std::string other(32, 'a');
  const ConfigLookup l = lookup_with(other);
  CHECK(l.source == ConfigLookup::Source::profile);
  REQUIRE(l.notes.size() == 1);
  CAPTURE(l.notes[0]);
  CHECK(l.notes[0].find("was tuned for another version of filter (kernel fingerprint " + other + ", this one " +
                        d.fingerprint() + ")") != std::string::npos);
  // The nearest size's entry too.
  CHECK(look_up_config(d, d.complete({{"n", 1 << 21}}), h100(), &store, {}, {}).notes.size() == 1);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("without a usable entry: tune, unless MEMTUNE_NO_TUNE or allow_tuning says no; then the default") {
  const Problem nine_taps{{"n", 1 << 20}, {"taps", 9}};
  const ConfigLookup tune = filter_lookup(nine_taps, h100());
  CHECK(tune.source == ConfigLookup::Source::tune);
  CHECK(tune.config.empty());

  LookupEnvironment no_tune;
  no_tune.no_tune = true;
  const ConfigLookup d1 = filter_lookup(nine_taps, h100(), no_tune);
  CHECK(d1.source == ConfigLookup::Source::default_config);
  CHECK(d1.origin == "default");
  CHECK(d1.rationale.find("MEMTUNE_NO_TUNE") != std::string::npos);
  CHECK(d1.config == templates::filter_description().default_config(templates::filter_description().complete(nine_taps), h100()));

  LauncherOptions never;
  never.allow_tuning = false;
  const ConfigLookup d2 = filter_lookup(nine_taps, h100(), {}, never);
  CHECK(d2.source == ConfigLookup::Source::default_config);
  // What was missing: the store's filter entries are all of 21 taps.
  CHECK(d2.rationale == "no profile entry of filter for this GPU model with taps=9, and tuning is off "
                        "(LauncherOptions::allow_tuning false): the description's default configuration");

  // A profile hit needs neither.
  CHECK(filter_lookup({{"n", 16 << 20}}, h100(), no_tune).source == ConfigLookup::Source::profile);
  // No store at all: straight to tuning.
  const KernelDescription& d = templates::filter_description();
  CHECK(look_up_config(d, d.complete({{"n", 16 << 20}}), h100(), nullptr, {}, {}).source == ConfigLookup::Source::tune);
}

TEST_CASE("MEMTUNE_CONFIG pins a configuration before the profile; parameters left out take the default") {
  LookupEnvironment env;
  env.pinned = R"({"block_size": 128, "items": 8})";
  const ConfigLookup l = filter_lookup({{"n", 16 << 20}}, h100(), env);
  CHECK(l.source == ConfigLookup::Source::pinned);
  CHECK(l.origin == "MEMTUNE_CONFIG");
  CHECK(formatted(l, {{"n", 16 << 20}}, h100()) == "staging=smem block_size=128 packing=1 items=8 vec=4 align=1 tiles=1 min_warps=0");

  // Keyed by kernel name: this kernel's entry, or nothing pinned for it.
  env.pinned = R"({"matvec": {"splits": 4}, "filter": {"packing": 2}})";
  CHECK(formatted(filter_lookup({{"n", 16 << 20}}, h100(), env), {{"n", 16 << 20}}, h100()) ==
        "staging=smem block_size=256 packing=2 items=4 vec=4 align=1 tiles=1 min_warps=0");
  env.pinned = R"({"matvec": {"splits": 4}})";
  CHECK(filter_lookup({{"n", 16 << 20}}, h100(), env).source == ConfigLookup::Source::profile);

  // A key two edits from this kernel's name: another kernel (daxpy beside
  // saxpy) or a typo ("filtr"); not an error, which would break the other
  // kernel's lookup, but said in the notes.
  env.pinned = R"({"filtr": {"block_size": 128}})";
  const ConfigLookup near = filter_lookup({{"n", 16 << 20}}, h100(), env);
  CHECK(near.source == ConfigLookup::Source::profile);
  REQUIRE(near.notes.size() == 1);
  CHECK(near.notes.front() == "MEMTUNE_CONFIG pins 'filtr', not 'filter' (another kernel, or a typo of this one?)");

  // A parameter this GPU does not have (Kepler's bank mode) is dropped.
  env.pinned = R"({"bank_mode": 8, "block_size": 64})";
  CHECK(filter_lookup({{"n", 16 << 20}}, h100(), env).source == ConfigLookup::Source::pinned);
}

TEST_CASE("a MEMTUNE_CONFIG that cannot be used is an InputError naming the variable and the parameter, never ignored") {
  LookupEnvironment env;
  // doctest::String: what doctest::Contains compares with.
  const auto error_of = [&](const std::string& pinned) -> doctest::String {
    env.pinned = pinned;
    try {
      (void)filter_lookup({{"n", 1000}}, h100(), env);
    } catch (const InputError& e) {
      CHECK(e.file() == "MEMTUNE_CONFIG");
      return e.what();
    }
    FAIL("no InputError for " << pinned);
    return {};
  };
  CHECK(error_of(R"({"block_size": 100})") ==
        "MEMTUNE_CONFIG: field 'block_size': 100 is not a value of 'block_size' (32, 64, 128, 256, 512, 1024) for "
        "filter (n=1000 taps=21) on NVIDIA H100 80GB HBM3");
  CHECK(error_of(R"({"filter": {"packing": "two"}})") ==
        doctest::Contains("MEMTUNE_CONFIG: field 'filter.packing': \"two\" is not a value of 'packing'"));
  CHECK(error_of(R"({"blocksize": 128})") ==
        doctest::Contains("field 'blocksize': 'blocksize' is not a parameter of filter (n=1000 taps=21) on NVIDIA H100 "
                          "80GB HBM3 (staging, block_size, packing, items, vec, align, tiles, min_warps)"));
  // A halo of 10 is no multiple of 4.
  CHECK(error_of(R"({"vec": 4, "align": 0})") == doctest::Contains("MEMTUNE_CONFIG: staging=smem block_size=256 packing=1 items=4 vec=4 "
                                                                    "align=0 tiles=1 min_warps=0 is not valid for filter (n=1000 taps=21)"));
  CHECK(error_of("block_size=128") == doctest::Contains("MEMTUNE_CONFIG:1: "));
  CHECK(error_of("[128]") == doctest::Contains("MEMTUNE_CONFIG: expected a JSON object"));
  // A parameter beside per-kernel configurations would be ignored for those kernels.
  CHECK(error_of(R"({"matvec": {"splits": 4}, "block_size": 64})") ==
        doctest::Contains("MEMTUNE_CONFIG: field 'block_size': a parameter for every kernel beside per-kernel"));
  // Duplicate keys: which one was meant is not guessed.
  CHECK(error_of(R"({"block_size": 64, "block_size": 128})") ==
        "MEMTUNE_CONFIG:1: field 'block_size': the key \"block_size\" appears twice");
}

TEST_CASE("the environment: MEMTUNE_NO_TUNE=0 or empty allows tuning") {
  ::setenv("MEMTUNE_NO_TUNE", "0", 1);
  ::setenv("MEMTUNE_CONFIG", "", 1);
  LookupEnvironment e = LookupEnvironment::from_process();
  CHECK_FALSE(e.no_tune);
  CHECK_FALSE(e.pinned);
  ::setenv("MEMTUNE_NO_TUNE", "1", 1);
  ::setenv("MEMTUNE_CONFIG", R"({"block_size": 64})", 1);
  e = LookupEnvironment::from_process();
  CHECK(e.no_tune);
  CHECK(e.pinned == std::optional<std::string>(R"({"block_size": 64})"));
  ::unsetenv("MEMTUNE_NO_TUNE");
  ::unsetenv("MEMTUNE_CONFIG");
}

TEST_CASE("MEMTUNE_NO_TUNE: 1 or 0, anything else named") {
  CHECK_FALSE(tuning_disabled(nullptr));
  CHECK_FALSE(tuning_disabled(""));
  CHECK_FALSE(tuning_disabled("0"));
  CHECK(tuning_disabled("1"));
  CHECK_THROWS_WITH_AS((void)tuning_disabled("yes"), "MEMTUNE_NO_TUNE: 'yes': expected 1 (never tune) or 0 (tune when needed)",
                       InputError);
}

TEST_CASE("a pin of every parameter needs no default: a sparse space of 3x10^10 answers at once; the default's search is bounded") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("memtune-sparse-lookup-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path assets = fs::path(MEMTUNE_TEST_ASSETS_DIR) / "descriptions";
  fs::copy_file(assets / "saxpy.cu", dir / "saxpy.cu", fs::copy_options::overwrite_existing);
  nlohmann::json d = nlohmann::json::parse(std::ifstream(assets / "saxpy.json"));
  std::vector<int> hundred(100);
  std::iota(hundred.begin(), hundred.end(), 1);
  d["source"]["kernel"] = "saxpy<{BLOCK}, {A}>";
  d["launch"]["grid"] = "ceil_div(n, BLOCK * A)";
  d["parameters"] = {{"BLOCK", {64, 128, 256}}, {"A", hundred}, {"B", hundred}, {"C", hundred}, {"D", hundred}, {"E", hundred}};
  d["constraints"] = {"A == 100 && B == 100 && C == 100 && D == 100 && E == 100"}; // the last 3 of 3x10^10
  d["verify"]["reference_config"] = {{"BLOCK", 64}, {"A", 100}, {"B", 100}, {"C", 100}, {"D", 100}, {"E", 100}};
  std::ofstream(dir / "sparse.json") << d.dump(1);
  const KernelDescription k = load_description(dir / "sparse.json");
  const Problem p = k.complete({{"n", 1000}});
  LookupEnvironment env;
  env.pinned = R"({"BLOCK": 64, "A": 100, "B": 100, "C": 100, "D": 100, "E": 100})";
  LauncherOptions never_tune;
  never_tune.allow_tuning = false;
  const auto start = std::chrono::steady_clock::now();
  const ConfigLookup l = look_up_config(k, p, h100(), nullptr, never_tune, env);
  CHECK(l.source == ConfigLookup::Source::pinned);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2)); // it walked the space for hours
  // No pin, no default: the first valid configuration is looked for among at most 2^22, then an error that says so.
  CHECK_THROWS_WITH_AS((void)k.default_config(p, h100()),
                       doctest::Contains("no valid configuration among the first 4194304 of 30000000000 for n=1000"),
                       std::invalid_argument);
  fs::remove_all(dir);
}
