#include "output_options.hpp"

#include <algorithm>

#include <memtune/io/errors.hpp>

namespace memtune::cli {

void add_format_options(CLI::App& sub, std::string& format, bool* json_alias) {
  CLI::Option* format_option = sub.add_option("--format", format, "output on stdout: table, json, csv or markdown")
                                   ->check(CLI::IsMember(output::format_names()))
                                   ->capture_default_str();
  // Both given would leave one silently ignored (--json --format csv printed JSON).
  if (json_alias) sub.add_flag("--json", *json_alias, "the same as --format json")->excludes(format_option);
}

output::Format chosen_format(const std::string& format, bool json_alias) {
  if (json_alias) return output::Format::json;
  return output::parse_format(format).value_or(output::Format::table);
}

void add_table_option(CLI::App& sub, std::string& table) {
  sub.add_option("--table", table,
                 "with --format csv: only this table as plain CSV (a header row, no comment lines), one table per "
                 "stream: ranked, failures, occupancy or baselines (memtune sweep: sizes)");
}

void check_table_option(const std::string& table, output::Format format, const std::vector<std::string>& tables) {
  if (table.empty()) return;
  if (format != output::Format::csv)
    throw ArgumentError("--table " + table, "needs --format csv (the other formats hold every table)");
  if (std::find(tables.begin(), tables.end(), table) == tables.end()) {
    std::string known;
    for (const std::string& t : tables) known += (known.empty() ? "" : ", ") + t;
    throw ArgumentError("--table " + table, "is not a table this command prints (" + known + ")");
  }
}

} // namespace memtune::cli
