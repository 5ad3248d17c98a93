#include <memtune/io/errors.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace memtune;

TEST_CASE("an input error says file, line, field and message, each only when known") {
  CHECK(std::string(InputError("p.json", 14, "entries[2].gbps", "expected a number").what()) ==
        "p.json:14: field 'entries[2].gbps': expected a number");
  CHECK(std::string(InputError("p.json", 0, "", "cannot open").what()) == "p.json: cannot open");
  CHECK(std::string(InputError("", 0, "device", "missing").what()) == "field 'device': missing");
  const InputError located = InputError("", 0, "device", "missing").within("entries[3]").located("p.json", 9);
  CHECK(located.file() == "p.json");
  CHECK(located.line() == 9);
  CHECK(located.field() == "entries[3].device");
  CHECK(located.message() == "missing");
  // A line already known is kept.
  CHECK(InputError("a.json", 4, "x", "m").located("b.json", 9).line() == 4);
}

TEST_CASE("fields join with dots, array indices without") {
  CHECK(join_field("", "device") == "device");
  CHECK(join_field("entries", "[2]") == "entries[2]");
  CHECK(join_field("entries[2]", "device") == "entries[2].device");
  CHECK(join_field("space", "") == "space");
}

TEST_CASE("a program's errors become a message and an exit code, never terminate") {
  std::ostringstream err;
  CHECK(run_reporting_errors("tool", err, [] { return 0; }) == 0);
  CHECK(run_reporting_errors("tool", err, []() -> int { throw InputError("r.json", 3, "trials", "missing"); }) == 1);
  CHECK(err.str() == "tool: r.json:3: field 'trials': missing\n");
  CHECK(run_reporting_errors("tool", err, []() -> int { throw ArgumentError("--top -1", "not a whole number"); }) == 2);
  CHECK(err.str().find("tool: --top -1: not a whole number\n") != std::string::npos);
  CHECK(run_reporting_errors("tool", err, []() -> int { throw 42; }) == 1);
  CHECK(err.str().find("tool: an unknown error") != std::string::npos);
}
