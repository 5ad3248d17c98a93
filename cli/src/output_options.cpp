#include "output_options.hpp"

namespace memtune::cli {

void add_format_options(CLI::App& sub, std::string& format, bool* json_alias) {
  sub.add_option("--format", format, "output on stdout: table, json, csv or markdown")
      ->check(CLI::IsMember(output::format_names()))
      ->capture_default_str();
  if (json_alias) sub.add_flag("--json", *json_alias, "the same as --format json");
}

output::Format chosen_format(const std::string& format, bool json_alias) {
  if (json_alias) return output::Format::json;
  return output::parse_format(format).value_or(output::Format::table);
}

} // namespace memtune::cli
