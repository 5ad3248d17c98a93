#include "interop_command.hpp"

#include "app.hpp"
#include "kernel_tuner_format.hpp"
#include "option_checks.hpp"

#include <memtune/io/atomic_file.hpp>
#include <memtune/io/json_document.hpp>

#include <memtune/report/html_report.hpp>

#include <fstream>
#include <sstream>

namespace memtune::cli {

struct InteropCommands {
  CLI::App *import = nullptr, *export_ = nullptr;
  std::string input, output, format = "kernel_tuner";
  ImportOptions options;
};

std::shared_ptr<InteropCommands> add_interop_commands(CLI::App& app) {
  auto cmd = std::make_shared<InteropCommands>();
  InteropCommands& c = *cmd;
  c.import = app.add_subcommand("import", "a Kernel Tuner cache or T4 results file as a memtune recording");
  c.import->add_option("file", c.input, "Kernel Tuner cache (.json) or T4 results file")->required()->check(CLI::ExistingFile);
  c.import->add_option("-o,--output", c.output, "the recording to write")->required();
  c.import->add_option("--template", c.options.template_name, "the recording's template name (default: the kernel's)");
  c.import->add_option("--device", c.options.device_name, "the device name (default: the cache's; T4 has none)");
  c.export_ = app.add_subcommand("export", "a memtune recording in another tool's format");
  c.export_->add_option("recording", c.input, "a memtune recording (--record)")->required()->check(CLI::ExistingFile);
  c.export_->add_option("--format", c.format, "the format to write")->check(CLI::IsMember({"kernel_tuner"}))->capture_default_str();
  c.export_->add_option("-o,--output", c.output, "the file to write")->required();
  return cmd;
}

bool interop_command_parsed(const InteropCommands& cmd) { return cmd.import->parsed() || cmd.export_->parsed(); }

int run_interop_command(const InteropCommands& c, std::ostream& out, std::ostream& err) {
  if (c.import->parsed()) {
    check_outputs({{"-o", c.output, io::OutputKind::recording}});
    const std::string text = io::read_text_file(c.input);
    search::Recording rec;
    try {
      rec = recording_from_kernel_tuner(text, c.options);
    } catch (const InputError& e) { // the JSON reader's, which knows the text but not the file
      throw InputError(c.input, e.line(), e.field(), e.message());
    } catch (const std::invalid_argument& e) {
      err << "memtune import: " << c.input << ": " << e.what() << "\n";
      return kExitError;
    }
    // What memtune's own readers would refuse is not written: the checks a
    // recording passes when read (merge, report, export read it back).
    try {
      (void)search::Recording::from_json(rec.to_json());
    } catch (const std::exception& e) {
      err << "memtune import: " << c.input << ": converts to a recording memtune cannot read: " << e.what() << "\n";
      return kExitError;
    }
    search::save_recording(rec, c.output);
    std::size_t ok = 0;
    for (const auto& t : rec.trials) ok += t.ok();
    out << "wrote " << c.output << ": " << rec.trials.size() << " trials (" << ok << " ok) of " << rec.template_name
        << " on " << rec.device.value("name", "") << ", " << rec.space.axes().size() << " parameters\n";
    return kExitOk;
  }
  check_outputs({{"-o", c.output, io::OutputKind::kernel_tuner_cache}});
  const search::Recording rec = search::load_recording(c.input);
  io::write_file_atomically(c.output, kernel_tuner_cache(rec).dump(1) + "\n", io::OutputKind::kernel_tuner_cache);
  out << "wrote " << c.output << ": Kernel Tuner cache of " << rec.trials.size() << " configurations (times in ms)\n";
  return kExitOk;
}

} // namespace memtune::cli
