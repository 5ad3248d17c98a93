// The supervisor (isolate/include/memtune/isolate/worker_pool.hpp) against a scripted
// worker process with no GPU (scripted_worker.cpp): replies, crashes, hangs
// killed by the watchdog, sticky errors, exits, floods of output; and a
// replacement worker after each, with the setup replayed.
#include <memtune/isolate/worker_pool.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

using namespace memtune;
using namespace memtune::isolation;

namespace {

Hello scripted_hello(Problem problem = {{"n", 4096}}) {
  Hello h;
  h.description.name = "scripted";
  h.problem = std::move(problem);
  return h;
}

nlohmann::json run_request(std::int64_t behaviour) {
  LaunchRequest r;
  r.config = {{"behaviour", behaviour}};
  return run_json(static_cast<std::uint64_t>(behaviour), r);
}

Completion run_one(WorkerPool& pool, std::int64_t behaviour, double limit_s = 30.0) {
  pool.submit(0, run_request(behaviour), {}, limit_s);
  auto done = pool.wait_any();
  REQUIRE(done);
  return std::move(*done);
}

} // namespace

TEST_CASE("a worker answers; a crash, an exit and a hang each cost one worker, and the next request is served") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello(), {0});
  pool.start();
  CHECK(pool.ready(0).target.name == "local");
  CHECK(pool.ready(0).pid > 0);
  CHECK_FALSE(pool.wait_any()); // nothing outstanding

  Completion ok = run_one(pool, 0);
  CHECK(ok.kind == Completion::Kind::reply);
  CHECK(ok.device == 0);
  CHECK(outcome_from_json(ok.reply.message).status == Status::ok);

  Completion crash = run_one(pool, 1);
  CHECK(crash.kind == Completion::Kind::died);
  CHECK(crash.reason.find("killed by signal 11") != std::string::npos);
  CHECK(crash.reason.find("about to crash") != std::string::npos); // its last output
  CHECK(pool.restarts() == 0);
  CHECK(outcome_from_json(run_one(pool, 0).reply.message).status == Status::ok);
  CHECK(pool.restarts() == 1);

  Completion exit = run_one(pool, 4);
  CHECK(exit.kind == Completion::Kind::died);
  CHECK(exit.reason.find("exited with status 5") != std::string::npos);
  CHECK(exit.reason.find("giving up") != std::string::npos);

  const auto before = std::chrono::steady_clock::now();
  Completion hang = run_one(pool, 2, 0.5);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  CHECK(hang.kind == Completion::Kind::timed_out);
  CHECK(hang.reason.find("still running after the limit of 0.5 s") != std::string::npos);
  CHECK(waited >= 0.5);
  CHECK(waited < 5.0);
  Completion after = run_one(pool, 0);
  CHECK(after.kind == Completion::Kind::reply);
  CHECK(after.seconds < 2.0); // a fresh worker at normal speed
  CHECK(pool.restarts() == 3);
}

TEST_CASE("a reply that says the context is lost retires the worker before the next request") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello(), {0});
  pool.start();
  const Completion sticky = run_one(pool, 3);
  REQUIRE(sticky.kind == Completion::Kind::reply);
  const LaunchOutcome o = outcome_from_json(sticky.reply.message);
  CHECK(o.context_lost);
  CHECK(o.cuda_error == "CUDA_ERROR_ILLEGAL_ADDRESS");
  pool.retire(0);
  CHECK(run_one(pool, 0).kind == Completion::Kind::reply);
  CHECK(pool.restarts() == 1);
}

TEST_CASE("a worker that writes more than a pipe holds is drained, not blocked") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello(), {0});
  pool.start();
  const Completion flood = run_one(pool, 5, 10.0);
  CHECK(flood.kind == Completion::Kind::reply);
}

TEST_CASE("a replacement worker gets the run's setup again") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello(), {0});
  pool.start();
  SetupRequest setup;
  setup.ceiling_bytes = 1 << 20;
  const SetupDone first = setup_done_from_json(pool.call(0, to_json(setup), {}, 10.0).message);
  REQUIRE(first.ceiling);
  CHECK(first.ceiling->gbps == 2000);
  setup.ceiling_bytes = 0;
  pool.set_restart_setup(setup, {});
  (void)run_one(pool, 1); // crash
  CHECK(run_one(pool, 0).kind == Completion::Kind::reply);
  CHECK(pool.restarts() == 1);
}

TEST_CASE("a worker that cannot serve says why at start") {
  WorkerPool no_gpu(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"no_device", 1}}), {0});
  try {
    no_gpu.start();
    FAIL("started");
  } catch (const WorkerError& e) {
    CHECK(e.kind == WorkerError::Kind::no_device);
    CHECK(std::string(e.what()).find("no NVIDIA driver") != std::string::npos);
  }
  WorkerPool missing("/nonexistent/memtune-worker", scripted_hello(), {0});
  CHECK_THROWS_WITH_AS(missing.start(), doctest::Contains("cannot execute"), WorkerError);
}

TEST_CASE("several workers at once (one per GPU ordinal): whichever finishes first completes first, with its device") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 2}}), {0, 1});
  pool.start();
  REQUIRE(pool.size() == 2);
  CHECK(pool.device(1) == 1);
  const std::uint64_t hang = pool.submit(0, run_request(2), {}, 1.0);
  CHECK(pool.idle_slot() == std::optional<std::size_t>(1));
  const std::uint64_t ok = pool.submit(1, run_request(0), {}, 30.0);
  CHECK_FALSE(pool.idle_slot());
  const auto first = pool.wait_any();
  REQUIRE(first);
  CHECK(first->ticket == ok);
  CHECK(first->device == 1);
  CHECK(first->kind == Completion::Kind::reply);
  const auto second = pool.wait_any();
  REQUIRE(second);
  CHECK(second->ticket == hang);
  CHECK(second->device == 0);
  CHECK(second->kind == Completion::Kind::timed_out);
  CHECK_FALSE(pool.wait_any());
  CHECK(outcome_from_json(run_one(pool, 0).reply.message).status == Status::ok); // slot 0 again, a fresh worker
}

TEST_CASE("workers added after the first start together; each tells the GPU count; a GPU the driver lacks is refused") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 3}}), {});
  (void)pool.launch({0}, WorkerSight::every_gpu);
  pool.await_ready(0);
  CHECK(pool.ready(0).device_count == 3);
  pool.add({2, 1});
  REQUIRE(pool.size() == 3);
  CHECK(pool.device(1) == 2);
  CHECK(pool.device(2) == 1);
  CHECK(pool.ready(1).device_count == 1); // its own GPU only
  CHECK(pool.ready(2).pid != pool.ready(1).pid);
  try {
    pool.add({3});
    FAIL("GPU 3 of 3 started");
  } catch (const WorkerError& e) {
    CHECK(e.kind == WorkerError::Kind::argument);
    CHECK(std::string(e.what()).find("there is no GPU 3") != std::string::npos);
  }
}

TEST_CASE("launch() starts workers without waiting: three 0.6 s starts take about 0.6 s; keep_first drops the rest") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 3}, {"start_ms", 600}}), {});
  const auto start = std::chrono::steady_clock::now();
  CHECK(pool.launch({0, 1}) == 0);
  CHECK(pool.launch({2}) == 2);
  for (std::size_t slot = 0; slot < pool.size(); ++slot) pool.await_ready(slot);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds >= 0.6);
  CHECK(seconds < 1.1);
  CHECK(pool.ready(2).setup_seconds == doctest::Approx(0.61));
  pool.await_ready(1); // ready already: at once
  pool.keep_first(1);
  CHECK(pool.size() == 1);
  CHECK(outcome_from_json(run_one(pool, 0).reply.message).status == Status::ok);

  WorkerPool broken(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 2}, {"broken_gpu", 1}}), {});
  (void)broken.launch({0, 1});
  broken.await_ready(0);
  CHECK_THROWS_WITH_AS(broken.await_ready(1), doctest::Contains("GPU 1: CUDA_ERROR_ECC_UNCORRECTABLE"), WorkerError);
  CHECK_THROWS_AS(broken.await_ready(2), std::out_of_range);
}

TEST_CASE("call_each sets every worker up at once: two 0.8 s setups take about 0.8 s, not 1.6 s") {
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 2}, {"setup_ms", 800}}), {0, 1});
  pool.start();
  SetupRequest first, other;
  first.ceiling_bytes = 1 << 20; // the ceiling on the first GPU only, as the executor asks
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Frame> replies = pool.call_each({to_json(first), to_json(other)}, {}, 10.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(replies.size() == 2);
  CHECK(setup_done_from_json(replies[0].message).ceiling);
  CHECK_FALSE(setup_done_from_json(replies[1].message).ceiling);
  CHECK(seconds >= 0.8);
  CHECK(seconds < 1.4);
  CHECK_THROWS_AS((void)pool.call_each({to_json(first)}, {}, 10.0), std::logic_error); // one request per slot
}

namespace {

// Sets an environment variable for one test case (the workers inherit it).
struct ScopedEnvironment {
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnvironment() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  const char* name_;
  std::optional<std::string> old_;
};

} // namespace

TEST_CASE("each worker sees its own GPU only: entry d of CUDA_VISIBLE_DEVICES; one naming no GPU gets the driver's answer") {
  // "mixed": the host's odd GPUs are another model, so a worker's name tells which host GPU it got.
  const ScopedEnvironment visible("CUDA_VISIBLE_DEVICES", "2,1");
  WorkerPool pool(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 3}, {"mixed", 1}}), {});
  (void)pool.launch({0, 1});
  (void)pool.launch({1}, WorkerSight::every_gpu);
  for (std::size_t slot = 0; slot < 3; ++slot) pool.await_ready(slot);
  CHECK(pool.ready(0).device_count == 1);
  CHECK(pool.ready(0).target.display_name != "Scripted Other GPU"); // the host's GPU 2
  CHECK(pool.ready(1).device_count == 1);
  CHECK(pool.ready(1).target.display_name == "Scripted Other GPU"); // the host's GPU 1
  CHECK(pool.ready(2).device_count == 2);                          // "2,1" as this process sees it
  CHECK(pool.ready(2).target.display_name == "Scripted Other GPU"); // its ordinal 1: the host's GPU 1
  CHECK(outcome_from_json(run_one(pool, 0).reply.message).status == Status::ok);

  // "2,7" on a host of 3: the driver stops at 7, so ordinal 1 is no GPU. The worker
  // shown "7" alone finds none; started again seeing "2,7", it says what the driver says.
  const ScopedEnvironment missing("CUDA_VISIBLE_DEVICES", "2,7");
  WorkerPool lacking(MEMTUNE_TEST_SCRIPTED_WORKER, scripted_hello({{"n", 4096}, {"gpus", 3}}), {});
  (void)lacking.launch({0, 1});
  lacking.await_ready(0);
  CHECK_THROWS_WITH_AS(lacking.await_ready(1), doctest::Contains("there is no GPU 1: the driver reports 1"), WorkerError);
}
