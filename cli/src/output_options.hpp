#pragma once
// `--format table|json|csv|markdown` (and the `--json` alias) of every command
// that prints a result (output/printer.hpp).
#include <memtune/output/printer.hpp>

#include <CLI/CLI.hpp>

#include <string>

namespace memtune::cli {

// Adds --format to `sub`, writing into `format` (default "table"); with
// `json_alias`, also --json (the same as --format json).
void add_format_options(CLI::App& sub, std::string& format, bool* json_alias = nullptr);
// The chosen format: json when the alias is set, else the --format value.
[[nodiscard]] output::Format chosen_format(const std::string& format, bool json_alias = false);

} // namespace memtune::cli
