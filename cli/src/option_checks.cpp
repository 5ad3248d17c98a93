#include "option_checks.hpp"

#include "size_parse.hpp"

#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/search/recording.hpp>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace memtune::cli {

CLI::Validator whole_number(std::uint64_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || v > max)
          return "'" + text + "' is not a whole number " +
                 (max == std::numeric_limits<std::uint64_t>::max() ? std::string(">= 0") : "in 0.." + std::to_string(max));
        return {};
      },
      "N >= 0", "whole number");
}

namespace {

// A finite number >= 0 of `unit` ("seconds"); its type name is the unit in capitals.
CLI::Validator non_negative(const std::string& unit) {
  std::string type = unit;
  for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return CLI::Validator(
      [unit](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
          return "'" + text + "' is not a number of " + unit + " >= 0";
        return {};
      },
      type + " >= 0", unit);
}

} // namespace

CLI::Validator seconds() { return non_negative("seconds"); }

CLI::Validator days() { return non_negative("days"); }

CLI::Validator local_target_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::string lower = text;
        for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (lower == "local") text = lower;
        return {};
      },
      "", "local in any capitals");
}

Problem parse_problem(const KernelDescription& kernel, const std::map<std::string, std::optional<std::string>>& typed,
                      ProblemSyntax syntax) {
  const std::vector<ProblemParameter>& parameters = kernel.problem;
  Problem problem;
  for (const auto& item : typed) {
    const std::string& name = item.first; // not a structured binding: clang 14 cannot capture those
    const std::optional<std::string>& text = item.second;
    if (!text) continue;
    const std::string argument =
        syntax == ProblemSyntax::kSet ? "--set " + name + "=" + *text : "--" + name + " '" + *text + "'";
    const auto param = std::find_if(parameters.begin(), parameters.end(), [&](const ProblemParameter& p) { return p.name == name; });
    if (param == parameters.end()) {
      std::string known;
      for (const auto& p : parameters) known += (known.empty() ? "" : ", ") + p.name;
      throw ArgumentError(argument, kernel.name + " has no problem variable '" + name + "' (known: " + known + ")");
    }
    if (!param->labels.empty()) {
      const auto it = std::find(param->labels.begin(), param->labels.end(), *text);
      if (it == param->labels.end()) {
        std::string known;
        for (const auto& l : param->labels) known += (known.empty() ? "" : ", ") + l;
        throw ArgumentError(argument, "expected one of " + known);
      }
      problem[name] = it - param->labels.begin();
      continue;
    }
    // A variable whose declared range reaches below 0 takes a sign ("--set shift=-5", "-4K").
    const bool negative = !text->empty() && (*text)[0] == '-';
    const auto v = parse_size(negative ? text->substr(1) : *text);
    if (negative && param->min >= 0)
      throw ArgumentError(argument, "negative, but " + name + " is at least " + std::to_string(param->min));
    if (!v)
      throw ArgumentError(argument, param->min < 0 ? "not an integer (examples: -5, 1000003, 64K, -16M)"
                                                   : "not a size (examples: 1000003, 64K, 16M)");
    problem[name] = negative ? -*v : *v;
  }
  return complete_problem(parameters, problem);
}

std::map<std::string, std::string> parse_only(const std::vector<std::string>& given) {
  std::vector<std::string> items; // "a=1,b=2" is two items, whether or not the caller's parser split it
  for (const std::string& text : given)
    for (std::size_t b = 0, e = 0; b <= text.size(); b = e + 1) {
      e = std::min(text.find(',', b), text.size());
      items.push_back(text.substr(b, e - b));
    }
  std::map<std::string, std::string> only;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw ArgumentError("--only '" + item + "'", "expected AXIS=VALUE");
    const std::string axis = item.substr(0, eq), value = item.substr(eq + 1);
    const auto [it, added] = only.emplace(axis, value);
    if (!added)
      throw ArgumentError("--only " + axis, "the axis is fixed twice (" + it->second + " and " + value +
                                                "); give each axis once");
  }
  return only;
}

void check_outputs(const std::vector<NamedOutput>& outputs) {
  for (const NamedOutput& o : outputs) {
    try {
      (void)io::output_file(o.file); // a folder, a device, a FIFO: the argument is wrong (exit 2)
    } catch (const InputError& e) {
      throw ArgumentError(o.option + " " + o.file, e.message());
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (io::same_file(outputs[i].file, outputs[j].file))
        throw ArgumentError(outputs[i].option + " " + outputs[i].file + " " + outputs[j].option + " " + outputs[j].file,
                            std::string("both name one file: the ") + io::to_string(outputs[j].kind) +
                                " would replace the " + io::to_string(outputs[i].kind) + ". Give two files.");
  for (const NamedOutput& o : outputs) {
    (void)io::check_output(o.file, o.kind); // another kind, no permission, no space: the file (exit 1)
    // A store that does not parse fails now, not after the run.
    if (o.kind == io::OutputKind::profile_store) (void)ProfileStore(o.file).entries();
  }
}

void check_output_files(const std::string& record, const std::string& save, const std::string& report,
                        const std::string& journal, const std::string& journal_option) {
  std::vector<NamedOutput> outputs;
  if (!save.empty()) outputs.push_back({"--save", save, io::OutputKind::profile_store});
  if (!record.empty()) outputs.push_back({"--record", record, io::OutputKind::recording});
  if (!report.empty()) outputs.push_back({"--report", report, io::OutputKind::html_report});
  if (!journal.empty()) outputs.push_back({journal_option, journal, io::OutputKind::journal});
  check_outputs(outputs);
}

std::string unknown_command_message(const std::string& given, const std::vector<std::string>& known) {
  std::string nearest;
  std::size_t best = 3; // suggest within two edits only
  for (const auto& k : known) {
    const std::size_t d = edit_distance(given, k);
    if (d < best) {
      best = d;
      nearest = k;
    }
  }
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  return "unknown command '" + given + "'" + (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)") +
         "; commands: " + list;
}

std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::vector<std::string> known;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) known.push_back(sub->get_name());
  if (std::find(known.begin(), known.end(), argv[1]) != known.end()) return std::nullopt;
  return unknown_command_message(argv[1], known);
}

} // namespace memtune::cli
