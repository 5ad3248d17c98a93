// The worker protocol's messages round-trip (isolate/include/memtune/isolate/protocol.hpp).
#include <memtune/isolate/frame.hpp>
#include <memtune/isolate/protocol.hpp>

#include "../support/catalogue_target.hpp"

#include <memtune/io/errors.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune;
using namespace memtune::isolation;

TEST_CASE("hello, setup and run requests round-trip") {
  Hello h;
  h.description = {DescriptionSource::Kind::file, "saxpy", "/tmp/saxpy.json", "{\"name\": \"saxpy\"}", "abc123"};
  h.problem = {{"n", 1 << 24}};
  h.seed = 18446744073709551615ULL; // every 64-bit seed
  h.device = 2;
  h.measure.flush_l2 = false;
  h.measure.timeout_seconds = 7.5;
  h.cache_folder = "/tmp/cache";
  const Hello back = hello_from_json(to_json(h));
  CHECK(back.description.kind == DescriptionSource::Kind::file);
  CHECK(back.description.content == h.description.content);
  CHECK(back.description.fingerprint == "abc123");
  CHECK(back.problem == h.problem);
  CHECK(back.seed == h.seed);
  CHECK(back.device == 2);
  CHECK_FALSE(back.measure.flush_l2);
  CHECK(back.measure.timeout_seconds == 7.5);
  CHECK(back.cache_folder == "/tmp/cache");

  nlohmann::json old = to_json(h);
  old["protocol"] = 0;
  CHECK_THROWS_AS((void)hello_from_json(old), WorkerError);

  h.description.kind = DescriptionSource::Kind::data;
  CHECK(hello_from_json(to_json(h)).description.kind == DescriptionSource::Kind::data);
  nlohmann::json unknown = to_json(h);
  unknown["description"]["kind"] = "pickled";
  CHECK_THROWS_AS((void)hello_from_json(unknown), ProtocolError);

  const std::vector<char> cubin{'a', 'b'};
  LaunchRequest r{{{"block", 256}, {"layout", 1}}, {}, "_Z6kernelILi256EEvPf", cubin};
  r.launch.name_expression = "kernel<256>";
  r.launch.grid = {100, 2, 1};
  r.launch.block = {256, 1, 1};
  r.launch.dynamic_smem_bytes = 65536;
  r.launch.options = {"-DTAPS=21"};
  const LaunchRequest rb = run_from_json(run_json(9, r), cubin);
  CHECK(rb.config == r.config);
  CHECK(rb.launch.grid == r.launch.grid);
  CHECK(rb.launch.dynamic_smem_bytes == 65536);
  CHECK(rb.launch.options == r.launch.options);
  CHECK(rb.lowered_name == r.lowered_name);
  CHECK_FALSE(rb.launch.cooperative);
  r.launch.cooperative = true; // a grid.sync() kernel's launch travels to the worker as one
  CHECK(run_from_json(run_json(9, r), cubin).launch.cooperative);
  r.launch.cooperative = false;

  // Two references (a depends_on axis): their cubins one after another in the blob.
  SetupRequest s;
  const std::vector<char> blob{'a', 'b', 'c', 'd', 'e'};
  LaunchRequest first = r, second = r;
  first.cubin = std::span<const char>(blob).first(2);
  second.cubin = std::span<const char>(blob).subspan(2);
  second.config.set("layout", 1);
  s.references = {first, second};
  s.time_reference = true;
  s.ceiling_bytes = 1 << 28;
  s.expected_for = search::Config{{"block", 128}};
  CHECK(setup_blob(s) == blob);
  const SetupRequest sb = setup_from_json(to_json(s), blob);
  REQUIRE(sb.references.size() == 2);
  CHECK(sb.references[0].config == r.config);
  CHECK(sb.references[1].config == second.config);
  CHECK(std::string(sb.references[0].cubin.begin(), sb.references[0].cubin.end()) == "ab");
  CHECK(std::string(sb.references[1].cubin.begin(), sb.references[1].cubin.end()) == "cde");
  // A blob that does not hold what the references say is refused.
  CHECK_THROWS_AS((void)setup_from_json(to_json(s), std::span<const char>(blob).first(4)), std::invalid_argument);
  CHECK_THROWS_AS((void)setup_from_json(to_json(s), std::vector<char>(6, 'x')), std::invalid_argument);
  CHECK(sb.time_reference);
  CHECK(sb.ceiling_bytes == s.ceiling_bytes);
  CHECK(sb.expected_for == s.expected_for);
}

TEST_CASE("setup_done round-trips with each part's seconds") {
  SetupDone d;
  d.reference_time_s = 4.9e-5;
  d.ceiling = CopyCeiling{2823.0, 104857600, Timing{7.4e-5, 7.3e-5, 7.6e-5, 0.01, 10, true}};
  d.inputs_seconds = 0.25;
  d.reference_seconds = 0.5;
  d.expected_seconds = 0.125;
  d.ceiling_seconds = 0.0625;
  d.same_size_copy_seconds = 0.03125;
  const SetupDone b = setup_done_from_json(nlohmann::json::parse(to_json(d).dump()));
  CHECK(b.reference_time_s == d.reference_time_s);
  REQUIRE(b.ceiling);
  CHECK(b.ceiling->gbps == 2823.0);
  CHECK_FALSE(b.same_size_copy);
  CHECK(b.inputs_seconds == 0.25);
  CHECK(b.reference_seconds == 0.5);
  CHECK(b.expected_seconds == 0.125);
  CHECK(b.ceiling_seconds == 0.0625);
  CHECK(b.same_size_copy_seconds == 0.03125);
  CHECK_FALSE(b.context_lost);
}

TEST_CASE("results and the target round-trip; an error that is not a number survives") {
  LaunchOutcome o;
  o.status = Status::wrong_result;
  o.reason = "12 of the outputs wrong";
  o.resources.registers = 40;
  o.resources.stack_frame_bytes = 16;
  o.driver_blocks_per_sm = 3;
  o.max_abs_error = NAN;
  o.cuda_error = "CUDA_ERROR_ILLEGAL_ADDRESS";
  o.context_lost = true;
  const LaunchOutcome b = outcome_from_json(nlohmann::json::parse(result_json(3, o).dump())); // as it travels
  CHECK(b.status == Status::wrong_result);
  CHECK(b.reason == o.reason);
  CHECK(b.resources.registers == 40);
  CHECK(b.resources.stack_frame_bytes == 16);
  CHECK(b.driver_blocks_per_sm == 3);
  CHECK(std::isnan(b.max_abs_error));
  CHECK(b.context_lost);
  CHECK_FALSE(b.timing);

  o.timing = Timing{4.9e-5, 4.8e-5, 5.3e-5, 0.012, 40, true};
  CHECK(outcome_from_json(result_json(3, o)).timing->median_s == 4.9e-5);

  const Target& t = catalogue_target("k20");
  const Target tb = target_from_wire(target_wire_json(t));
  CHECK(tb.display_name == t.display_name);
  CHECK(tb.compute_capability() == t.compute_capability());
  CHECK(tb.bank_widths_bytes == t.bank_widths_bytes);
  CHECK(tb.smem_per_block_optin == t.smem_per_block_optin);
  CHECK(tb.memory_latency_ns == t.memory_latency_ns);
  CHECK(tb.origin == t.origin);

  CopyCeiling c{2823.0, 104857600, Timing{7.4e-5, 7.3e-5, 7.6e-5, 0.01, 10, true}};
  CHECK(ceiling_from_json(ceiling_json(c)).gbps == 2823.0);

  BaselineResult base{"cublas", "cuBLAS sgemv", true, true, "", Timing{5e-5, 5e-5, 5e-5, 0, 10, true}, 2500.0, 0.0};
  const BaselineResult bb = baseline_from_json(baseline_json(base));
  CHECK(bb.description == "cuBLAS sgemv");
  CHECK(bb.timing->median_s == 5e-5);
}

TEST_CASE("a candidate's energy and the energy options travel; a damaged energy is an error naming its field") {
  LaunchOutcome o;
  o.timing = Timing{4.9e-5, 4.8e-5, 5.3e-5, 0.012, 40, true};
  EnergyMeasurement m;
  m.joules_per_launch = 0.0212;
  m.min_j = 0.0209;
  m.max_j = 0.0215;
  m.spread = 0.008;
  m.mean_watts = 433;
  m.idle_watts = 72;
  m.repeats = 5;
  m.launches_per_batch = 2041;
  m.batch_seconds = 0.1;
  m.resolution_j = 0.001;
  m.period_s = 0.02;
  m.source = EnergySource::power;
  o.energy = m;
  o.energy_error = "";
  const LaunchOutcome b = outcome_from_json(nlohmann::json::parse(result_json(3, o).dump()));
  REQUIRE(b.energy);
  CHECK(b.energy->joules_per_launch == 0.0212);
  CHECK(b.energy->launches_per_batch == 2041);
  CHECK(b.energy->source == EnergySource::power);
  o.energy.reset();
  o.energy_error = "NVML (libnvidia-ml.so.1) could not be loaded";
  CHECK(outcome_from_json(result_json(3, o)).energy_error == o.energy_error);

  nlohmann::json bad = energy_json(m);
  bad["repeats"] = 0;
  CHECK_THROWS_AS((void)energy_from_json(bad), InputError);
  bad = energy_json(m);
  bad["source"] = "guess";
  CHECK_THROWS_AS((void)energy_from_json(bad), InputError);

  MeasureOptions mo;
  mo.energy.enabled = true;
  mo.energy.repeats = 7;
  const MeasureOptions back = measure_from_json(measure_json(mo));
  CHECK(back.energy.enabled);
  CHECK(back.energy.repeats == 7);
}
