#pragma once
// `--format table|json|csv|markdown` (and the `--json` alias) of every command
// that prints a result (output/printer.hpp).
#include <memtune/output/printer.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace memtune::cli {

// Adds --format to `sub`, writing into `format` (default "table"); with
// `json_alias`, also --json (the same as --format json).
void add_format_options(CLI::App& sub, std::string& format, bool* json_alias = nullptr);
// The chosen format: json when the alias is set, else the --format value.
[[nodiscard]] output::Format chosen_format(const std::string& format, bool json_alias = false);
// Adds --table KEY (with --format csv: that one table as plain CSV).
void add_table_option(CLI::App& sub, std::string& table);
// Throws ArgumentError when --table is given with another format than csv,
// or names none of `tables` (the command's), before anything runs.
void check_table_option(const std::string& table, output::Format format, const std::vector<std::string>& tables);

} // namespace memtune::cli
