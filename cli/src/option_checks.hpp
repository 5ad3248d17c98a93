#pragma once
// The checks of the memtune command line that CLI11 does not make, so that no
// argument is accepted silently: an empty size, a negative count (CLI11 wraps
// "-1" into 2^64 - 1 for unsigned options), NaN seconds, an axis fixed twice,
// two outputs naming one file, a folder where a file is needed, a misspelt
// subcommand (a problem larger than the GPU's memory: memtune/measure/memory_fit.hpp). Each throws
// ArgumentError (exit 2) before anything runs or is written; a store that does
// not parse is an InputError (exit 1), also before anything runs.
#include <memtune/description/kernel_description.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/model/target.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memtune::cli {

// CLI11 validators: a whole number in [0, max] ("-1", "1.5", "" refused), and
// a finite number of seconds or days >= 0 ("nan", "inf", "-3" refused).
[[nodiscard]] CLI::Validator whole_number(std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
[[nodiscard]] CLI::Validator seconds();
[[nodiscard]] CLI::Validator days();
// --target's "local" in any capitals as "local" (target names are matched
// without regard to case; "local" alone was not).
[[nodiscard]] CLI::Validator local_target_name();

// How the user typed a problem variable: a template command's own option
// ("--n 16M") or tune --spec's "--set n=16M"; errors quote it that way.
enum class ProblemSyntax { kOption, kSet };

// The problem as typed (an absent option is nullopt, "" is an error): sizes
// with K/M/G, signed ("-5", "-4K") where the variable's declared min is below
// 0, labels for choice parameters; defaults and ranges come from
// complete_problem (std::invalid_argument).
[[nodiscard]] Problem parse_problem(const KernelDescription& kernel,
                                    const std::map<std::string, std::optional<std::string>>& typed,
                                    ProblemSyntax syntax = ProblemSyntax::kOption);

// "--only a=1,b=2 --only c=x" -> {a: 1, b: 2, c: x}; items may still hold
// commas (a caller without CLI11's delimiter, such as the sanitizer runner).
// Refuses an item without '=' or axis, and an axis given twice.
[[nodiscard]] std::map<std::string, std::string> parse_only(const std::vector<std::string>& items);

// One output of a command: the option that names it ("--report", "-o"), the
// file, what it is.
struct NamedOutput {
  std::string option;
  std::string file;
  io::OutputKind kind;
};
// The output-file policy's checks (io::check_output) for every output of a
// command, before it runs: a folder, a device, a FIFO or two outputs naming
// one file (links followed, hard links too) are a bad argument (ArgumentError,
// exit 2); an existing file of another kind, one that cannot be written, a
// read-only or full file system, a store that does not parse: InputError
// (exit 1). Nothing is written.
void check_outputs(const std::vector<NamedOutput>& outputs);
// A tuning command's outputs (empty: not given): --save, --record, --report
// and the journal (--journal, --resume or RECORD.journal).
void check_output_files(const std::string& record, const std::string& save, const std::string& report = {},
                        const std::string& journal = {}, const std::string& journal_option = "--journal");

// For `memtune filtre`: "unknown command 'filtre' (did you mean 'filter'?); commands: ...".
[[nodiscard]] std::string unknown_command_message(const std::string& given, const std::vector<std::string>& known);
// That message when argv's first word is not one of `app`'s subcommands (CLI11
// would say only "A subcommand is required"); nullopt otherwise.
[[nodiscard]] std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv);

} // namespace memtune::cli
