#include "probe_command.hpp"

#include "app.hpp"
#include "option_checks.hpp"
#include "output_options.hpp"
#include "progress.hpp"
#include "size_parse.hpp"

#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/probe/calibrate.hpp>
#include <memtune/probe/runner.hpp>
#include <memtune/measure/target_resolver.hpp>

#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memtune::cli {

struct ProbeCommand {
  CLI::App* app = nullptr;
  probe::ProbeOptions options;
  std::vector<std::string> only;
  std::string json_file, csv_dir, record_dir, save_target, target_name, base_target;
  std::string coalescing_n, copy_bytes, dram_chase_bytes, l2_chase_bytes, l2_read_bytes;
  std::string cache_dir;
  std::string format = "table";
  bool no_cache = false;
  bool warm = false;
  bool quiet = false;
  bool list = false;
};

namespace {

void write_json(const std::filesystem::path& path, const nlohmann::json& j, io::OutputKind kind) {
  io::write_file_atomically(path, j.dump(2) + "\n", kind);
}

// The catalogue entry of the same GPU model: same cc and SM count, then the
// closest theoretical DRAM bandwidth (H100 SXM and H200 share cc and SMs).
std::optional<Target> catalogue_match(const Target& local, const std::string& forced, std::ostream& err) {
  try {
    const auto catalog = load_targets();
    if (!forced.empty()) return catalog.find(forced);
    const Target* best = nullptr;
    for (const auto& t : catalog.targets()) {
      if (t.cc_major != local.cc_major || t.cc_minor != local.cc_minor || t.sm_count != local.sm_count) continue;
      if (!best || std::abs(t.dram_bandwidth_gbs - local.dram_bandwidth_gbs) <
                       std::abs(best->dram_bandwidth_gbs - local.dram_bandwidth_gbs))
        best = &t;
    }
    if (best) return *best;
  } catch (const model::UnknownTargetError&) {
    throw;
  } catch (const std::exception& e) {
    err << "memtune probe: no catalogue to complete the target from (" << e.what() << ")\n";
  }
  return std::nullopt;
}

bool parse_size_option(const std::string& text, const char* name, std::uint64_t& out, std::ostream& err) {
  if (text.empty()) return true;
  const auto v = parse_size(text);
  if (!v || *v < 1) {
    err << "memtune probe: --" << name << " " << text << ": not a size (examples: 1000003, 64K, 16M)\n";
    return false;
  }
  out = static_cast<std::uint64_t>(*v);
  return true;
}

// How many "probe: ..." lines the runner will write for these options (its
// run() order: copy, coalescing, each bank variant, each latency level, l2, launch).
std::size_t probe_steps(const probe::ProbeOptions& o) {
  std::size_t n = 0;
  n += probe::selected(o.only, "copy") && o.launches == 0;
  n += probe::selected(o.only, "offset") || probe::selected(o.only, "stride");
  for (const auto& v : probe::bank_variants()) n += probe::selected(o.only, "bank", v.name);
  for (const char* level : {"dram", "l2"}) n += probe::selected(o.only, "latency", level);
  n += probe::selected(o.only, "l2");
  n += probe::selected(o.only, "launch");
  return n;
}

} // namespace

std::shared_ptr<ProbeCommand> add_probe_command(CLI::App& app) {
  auto cmd = std::make_shared<ProbeCommand>();
  CLI::App* sub = app.add_subcommand(
      "probe", "probe the local GPU: copy ceiling, coalescing curves, shared-memory banks, latency, L2 read bandwidth, block "
      "launch rate; calibrate its target");
  cmd->app = sub;
  probe::ProbeOptions& o = cmd->options;
  sub->add_option("--only", cmd->only,
                  "run only these probes/items (repeat or comma-separate): copy, coalescing, offset[:S], stride[:S], "
                  "bank[:VARIANT], latency[:dram|l2], l2 (read bandwidth), launch (block launch rate); e.g. --only "
                  "bank:f32-stride32")
      ->delimiter(',');
  sub->add_option("--launches", o.launches,
                  "0: timed (default). N: exactly N untimed launches of each selected kernel (for ncu); skips copy")
      ->capture_default_str()
      ->check(whole_number(INT_MAX));
  sub->add_option("--json", cmd->json_file, "write every result to this JSON file");
  sub->add_option("--csv", cmd->csv_dir, "write one CSV per probe into this folder");
  sub->add_option("--record", cmd->record_dir,
                  "write each probe space (offset, stride, bank) as a recording into this folder, for replayed search");
  sub->add_option("--save-target", cmd->save_target, "write a calibrated target profile (configs/targets format)");
  sub->add_option("--target-name", cmd->target_name,
                  "name of the saved target (default: the file's stem if valid, else from the GPU's name)");
  sub->add_option("--base-target", cmd->base_target,
                  "catalogue target completing what the driver does not report (default: same cc, SMs, nearest bandwidth)");
  sub->add_option("--coalescing-n", cmd->coalescing_n, "elements per coalescing launch (default 32M, fitted to memory)");
  sub->add_option("--copy-bytes", cmd->copy_bytes, "bytes per copy (default max(256M, 4 x L2))");
  sub->add_option("--bank-reps", o.bank_reps, "shared loads per thread in the bank kernels")->capture_default_str()
      ->check(whole_number());
  sub->add_option("--bank-blocks", o.bank_blocks, "blocks per bank launch (default 32 per SM)")
      ->check(whole_number(INT_MAX));
  sub->add_option("--dram-chase-bytes", cmd->dram_chase_bytes, "DRAM pointer-chase footprint (default max(256M, 8 x L2))");
  sub->add_option("--l2-chase-bytes", cmd->l2_chase_bytes, "L2 pointer-chase footprint (default L2 / 4)");
  sub->add_option("--chase-stride", o.chase_stride, "bytes between chased slots (>= 128)")->capture_default_str()
      ->check(whole_number());
  sub->add_option("--chase-steps", o.chase_steps, "timed dependent loads per latency launch")->capture_default_str()
      ->check(whole_number());
  sub->add_option("--l2-read-bytes", cmd->l2_read_bytes, "L2 read-bandwidth footprint (default L2 / 4)");
  sub->add_option("--l2-read-passes", o.l2_read_passes,
                  "reads of the footprint per L2 read launch (default 0: enough for 1 GiB per launch)")
      ->capture_default_str()
      ->check(whole_number(INT_MAX));
  sub->add_option("--launch-blocks", o.launch_blocks,
                  "largest grid of the block launch probe (also timed: / 4, / 16, / 64)")
      ->capture_default_str()
      ->check(whole_number());
  sub->add_option("--seed", o.seed, "seed for the random inputs")->capture_default_str()
      ->check(whole_number());
  sub->add_option("--device", o.device, "CUDA device ordinal")->capture_default_str()
      ->check(whole_number(INT_MAX));
  sub->add_flag("--warm", cmd->warm, "keep caches warm between samples (default: flush L2 before each)");
  sub->add_option("--cache-dir", cmd->cache_dir, "compile cache folder (default: $MEMTUNE_CACHE_DIR or ~/.cache/memtune)");
  sub->add_flag("--no-cache", cmd->no_cache, "compile everything, read and write no cache");
  sub->add_flag("-q,--quiet", cmd->quiet, "no progress on stderr");
  add_format_options(*sub, cmd->format);
  sub->add_flag("--list", cmd->list, "list the probes, their --only selectors and kernel names (no GPU needed)");
  return cmd;
}

bool probe_command_parsed(const ProbeCommand& cmd) { return cmd.app && cmd.app->parsed(); }

int run_probe_command(const ProbeCommand& c, std::ostream& out, std::ostream& err) {
  probe::ProbeOptions o = c.options;
  for (const auto& s : c.only)
    if (!s.empty()) o.only.push_back(s);
  std::uint64_t n = 0, copy = 0, dram = 0, l2 = 0, l2_read = 0;
  if (!parse_size_option(c.coalescing_n, "coalescing-n", n, err) || !parse_size_option(c.copy_bytes, "copy-bytes", copy, err) ||
      !parse_size_option(c.dram_chase_bytes, "dram-chase-bytes", dram, err) ||
      !parse_size_option(c.l2_chase_bytes, "l2-chase-bytes", l2, err) ||
      !parse_size_option(c.l2_read_bytes, "l2-read-bytes", l2_read, err))
    return kExitUsage;
  o.coalescing_n = n;
  o.copy_bytes = copy;
  o.dram_chase_bytes = dram;
  o.l2_chase_bytes = l2;
  o.l2_read_bytes = l2_read;
  o.measure.flush_l2 = !c.warm;
  if (!c.no_cache) o.cache_folder = c.cache_dir.empty() ? CompileCache::default_folder() : std::filesystem::path(c.cache_dir);
  if (c.list) {
    out << "selector            kernel                      what\n";
    out << "copy                probe_copy_float4           device-to-device copy (cuMemcpyDtoD) and a float4 copy kernel\n";
    out << "offset:0..32        probe_offset                a[i + s] += 1, n floats\n";
    out << "stride:1..32        probe_stride                a[i * s] += 1, n floats\n";
    for (const auto& v : probe::bank_variants()) {
      const std::string sel = "bank:" + v.name;
      out << sel << std::string(sel.size() < 20 ? 20 - sel.size() : 1, ' ') << v.kernel
          << std::string(v.kernel.size() < 28 ? 28 - v.kernel.size() : 1, ' ') << v.width_bytes << "-byte elements, "
          << v.what << "\n";
    }
    out << "latency:dram        probe_pointer_chase         dependent loads over a buffer larger than L2\n";
    out << "latency:l2          probe_pointer_chase         dependent loads over an L2-resident buffer\n";
    out << "l2                  probe_l2_read               all SMs read an L2-resident buffer (ld.global.cg): GB/s\n";
    out << "launch              probe_empty_block           empty 32-thread blocks, 4 grid sizes: ns per block\n";
    return kExitOk;
  }
  // Argument mistakes are reported before looking for a GPU.
  try {
    probe::check_options(o);
  } catch (const std::invalid_argument& e) {
    err << "memtune probe: " << e.what() << "\n";
    return kExitUsage;
  }
  if (!c.target_name.empty() && probe::target_name_from(c.target_name) != c.target_name) {
    err << "memtune probe: --target-name " << c.target_name << ": use only a-z, 0-9 and '-' (e.g. "
        << probe::target_name_from(c.target_name) << ")\n";
    return kExitUsage;
  }
  // The files are checked before the probes run (minutes on a GPU); the
  // folders' files are named by the probes that ran, checked as written.
  std::vector<NamedOutput> outputs;
  if (!c.json_file.empty()) outputs.push_back({"--json", c.json_file, io::OutputKind::probe_results});
  if (!c.save_target.empty()) outputs.push_back({"--save-target", c.save_target, io::OutputKind::target_profile});
  check_outputs(outputs);
  for (const auto& [option, folder] : {std::pair<const char*, const std::string&>{"--csv", c.csv_dir}, {"--record", c.record_dir}}) {
    std::error_code ec;
    if (!folder.empty() && std::filesystem::exists(folder, ec) && !std::filesystem::is_directory(folder, ec))
      throw ArgumentError(std::string(option) + " " + folder, "is a file: give a folder (one file per probe is written in it)");
  }
  if (!cuda::driver_available()) {
    err << "memtune probe: needs a GPU to measure: " << cuda::driver_unavailable_reason() << "\n";
    return kExitNoDevice;
  }

  std::ostringstream discard;
  std::optional<ProgressLine> line;
  std::optional<LineCallbackBuf> lines;
  std::optional<std::ostream> progress;
  if (!c.quiet) {
    // The runner announces each probe with a line: each is a step of the progress line.
    line.emplace(err, stderr_is_terminal(err));
    line->phase("probe", probe_steps(o), "probes", false);
    std::size_t done = 0;
    lines.emplace([&line, done](const std::string& text) mutable {
      if (done) line->update(done, 0, std::nullopt);
      ++done;
      line->note(text.rfind("probe: ", 0) == 0 ? text.substr(7) : text);
    });
    progress.emplace(&*lines);
  }
  probe::ProbeReport r;
  try {
    r = probe::run_probes(o, progress ? *progress : static_cast<std::ostream&>(discard));
    if (line) line->finish("done");
  } catch (const cuda::DriverUnavailable& e) {
    err << "memtune probe: needs a GPU to measure: " << e.what() << "\n";
    return kExitNoDevice;
  }

  const output::Format format = chosen_format(c.format);
  output::print(out, probe::to_document(r), format);
  // Notes go where they do not break a machine-readable stdout.
  std::ostream& notes = format == output::Format::table || format == output::Format::markdown ? out : err;
  if (!c.json_file.empty()) write_json(c.json_file, probe::to_json(r), io::OutputKind::probe_results);
  if (!c.csv_dir.empty()) probe::write_csv(r, c.csv_dir);
  if (!c.record_dir.empty()) {
    std::filesystem::create_directories(c.record_dir);
    for (const auto& [name, doc] : probe::recordings(r)) write_json(std::filesystem::path(c.record_dir) / name, doc, io::OutputKind::recording);
  }
  if (!c.save_target.empty()) {
    std::string name = c.target_name;
    if (name.empty()) {
      const std::string stem = std::filesystem::path(c.save_target).stem().string();
      name = probe::target_name_from(stem) == stem ? stem : probe::target_name_from(r.device.name);
    }
    const std::optional<Target> base = catalogue_match(r.target, c.base_target, err);
    const Target t = probe::calibrated_target(r, base ? &*base : nullptr, name);
    write_json(c.save_target, probe::target_file_json(t), io::OutputKind::target_profile);
    // Prove it loads: the model's loader must accept what was written.
    const Target back = model::load_target_file(c.save_target);
    notes << "\nsaved target '" << back.name << "' to " << c.save_target
        << (base ? " (completed from catalogue entry " + base->name + ")" : std::string{}) << "\n";
  }
  if (!r.all_verified()) {
    err << "memtune probe: some probe outputs did not match the reference (see 'verified' above)\n";
    return kExitError;
  }
  return kExitOk;
}

} // namespace memtune::cli
