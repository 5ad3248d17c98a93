// holds_kind / what_it_holds: what an existing file is, so that the output
// policy replaces only a file of the writer's kind.
#include <memtune/io/atomic_file.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace memtune;
using io::OutputKind;

TEST_CASE("output kinds: each of memtune's files is recognised by its shape") {
  CHECK(io::holds_kind(R"({"entries": [], "schema_version": 1, "tool": "memtune 0.1.0"})", OutputKind::profile_store));
  CHECK(io::holds_kind(R"({"schema_version": 1, "space": {"axes": []}, "trials": [{"status": "ok"}]})", OutputKind::recording));
  CHECK(io::holds_kind("{\"bytes_moved\":1,\"journal\":\"memtune\",\"journal_version\":1}\n{\"candidate\":0}\n", OutputKind::journal));
  CHECK(io::holds_kind("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>memtune report: filter</title>",
                       OutputKind::html_report));
  CHECK(io::holds_kind(R"({"device_name": "A100", "tune_params_keys": ["block_size_x"], "cache": {}})", OutputKind::kernel_tuner_cache));
  CHECK(io::holds_kind(R"({"command": "probe", "schema_version": 1})", OutputKind::probe_results));
  CHECK(io::holds_kind(R"({"name": "h100", "cc_major": 9, "sm_count": 132})", OutputKind::target_profile));
  CHECK(io::holds_kind("stride,gbps\n1,2800\n", OutputKind::csv_table));
  // Empty or white space (`touch FILE`): every writer may fill it.
  for (const OutputKind k : {OutputKind::profile_store, OutputKind::journal, OutputKind::html_report, OutputKind::csv_table}) {
    CHECK(io::holds_kind("", k));
    CHECK(io::holds_kind(" \n", k));
  }
}

TEST_CASE("output kinds: a file of another kind, or one memtune did not write, is never one") {
  const std::string store = R"({"schema_version": 1, "entries": []})";
  CHECK_FALSE(io::holds_kind(store, OutputKind::html_report));
  CHECK_FALSE(io::holds_kind(store, OutputKind::recording));
  CHECK_FALSE(io::holds_kind(store, OutputKind::journal));
  CHECK(io::what_it_holds(store) == "a profile store");
  CHECK(io::what_it_holds(R"({"space": {}, "trials": []})") == "a recording");
  CHECK(io::what_it_holds("<!DOCTYPE html><title>memtune report: x</title>") == "an HTML report");
  CHECK(io::what_it_holds(R"({"a": 1})") == "a JSON document memtune did not write");
  CHECK(io::what_it_holds(std::string("\x7f" "ELF\0\1", 6)) == "binary data");
  // Notes without a newline are not a journal killed in its header: never truncated into one.
  CHECK_FALSE(io::holds_kind("notes", OutputKind::journal));
  CHECK(io::what_it_holds("notes") == "text memtune did not write");
  CHECK_FALSE(io::holds_kind("<!DOCTYPE html><title>my page</title>", OutputKind::html_report));
  CHECK_FALSE(io::holds_kind("[1, 2]", OutputKind::recording));
  CHECK_FALSE(io::holds_kind("[1,2]\n", OutputKind::csv_table)); // a JSON array, not a CSV header
  CHECK(io::what_it_holds("[1,2]\n") == "a JSON document memtune did not write");
  CHECK_FALSE(io::holds_kind("{\"journal\": \"other\"}\n", OutputKind::journal));
  // Malformed JSON is no kind (a store that does not parse is never replaced).
  CHECK_FALSE(io::holds_kind(R"({"schema_version": 1, "entries": [)", OutputKind::profile_store));
  // The compile cache's own entries are replaced whatever they hold.
  CHECK(io::holds_kind("\x7f" "ELF", OutputKind::compile_cache));
}

TEST_CASE("output kinds: a journal killed while its header was written is still a journal") {
  CHECK(io::holds_kind("{", OutputKind::journal));
  CHECK(io::holds_kind(R"({"bytes_m)", OutputKind::journal));
  CHECK(io::holds_kind(R"({"bytes_moved":1024,"compiled_for":90,"descr)", OutputKind::journal));
  CHECK_FALSE(io::holds_kind("{\"bytes_moved\":1}\nnotes\n", OutputKind::journal)); // a complete line that is no header
  CHECK_FALSE(io::holds_kind(R"({"notes": 1})", OutputKind::journal));
}
