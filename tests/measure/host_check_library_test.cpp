// The host check's C ABI: a library built in the test tree
// (tests/assets/host_check/check_sum.cpp) is loaded and called with the
// problem, the configuration and host buffers, as a workload does after a launch.
#include "measure/src/host_check_library.hpp"

#include "../thrown_message.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

using namespace memtune;
using namespace memtune::description_detail;

namespace {

std::span<const std::byte> bytes_of(const std::vector<float>& v) { return std::as_bytes(std::span(v)); }

BufferArgument float_buffer(const char* name, BufferRole role) {
  BufferArgument b;
  b.name = name;
  b.type = ElementType::f32;
  b.role = role;
  return b;
}

} // namespace

TEST_CASE("host check: a library's function sees the problem, the configuration and every buffer, offsets included") {
  const HostCheckLibrary check(HostCheck{MEMTUNE_TEST_HOST_CHECK_LIBRARY, "check_scaled"}, "k.json");
  const BufferArgument in = float_buffer("in", BufferRole::in), out = float_buffer("out", BufferRole::out);
  const std::vector<float> x{1, 2, 3, 4};
  std::vector<float> y{-7, 3, 6, 9, 12}; // one element of padding in front of the kernel's pointer
  const Problem problem{{"n", 4}};
  const search::Config config{{"SCALE", 3}};
  const std::vector<HostBufferView> views{{&in, bytes_of(x), 0, 4}, {&out, bytes_of(y), 1, 4}};

  Verification v = check.run(problem, config, views);
  CHECK(v.ok);
  CHECK(v.note == "4 elements checked");

  y[3] = 10;
  v = check.run(problem, config, views);
  CHECK_FALSE(v.ok);
  CHECK(v.note == "the host check 'check_scaled' failed: out[2] = 10, expected 9 (n = 4)");

  // A configuration the check cannot handle is a failure that says so, never ok.
  v = check.run(problem, search::Config{{"OTHER", 1}}, views);
  CHECK_FALSE(v.ok);
  CHECK(v.note == "the host check 'check_scaled' could not run for this configuration (it returned -2): no SCALE in the "
                  "configuration");

  // A view larger than its bytes is memtune's bug, not the user's.
  const std::vector<HostBufferView> short_view{{&in, bytes_of(x), 0, 4}, {&out, bytes_of(y), 2, 4}};
  CHECK_THROWS_AS((void)check.run(problem, config, short_view), std::logic_error);
}

TEST_CASE("host check: a missing library or function is an error naming the field, before any run") {
  CHECK(thrown_message<std::invalid_argument>([] { HostCheckLibrary(HostCheck{"/nonexistent/check.so", "f"}, "k.json"); })
            .rfind("k.json: field 'verify.library': cannot load /nonexistent/check.so: ", 0) == 0);
  const std::string missing = thrown_message<std::invalid_argument>([] { HostCheckLibrary(HostCheck{MEMTUNE_TEST_HOST_CHECK_LIBRARY, "nope"}, "k.json"); });
  CHECK(missing.find("k.json: field 'verify.function': ") == 0);
  CHECK(missing.find("has no function 'nope'") != std::string::npos);
}

TEST_CASE("host check: a function given directly gets the lanes of a vector buffer") {
  const auto check_half2 = [](const memtune_check_input* in) -> int {
    const memtune_buffer_view* b = memtune_find_buffer(in, "h");
    if (!b) return -1;
    return b->lane == MEMTUNE_LANE_F16 && b->lanes == 2 && b->element_bytes == 4 && b->count == 3 &&
                   std::strcmp(b->type, "half2") == 0 && b->role == MEMTUNE_ROLE_INOUT
               ? 1
               : 0;
  };
  const HostCheckLibrary check(+check_half2, "check_half2");
  BufferArgument h;
  h.name = "h";
  h.type = vector_type(ElementType::f16, 2);
  h.role = BufferRole::inout;
  const std::vector<std::byte> bytes(12);
  const std::vector<HostBufferView> views{{&h, bytes, 0, 3}};
  CHECK(check.run({}, {}, views).ok);
}
