// memtune_startup_bench: the time from a fresh process (exec) to the first
// launch of a tuned kernel, split into phases, with a warm compile cache and
// a profile hit; the median over repeated fresh processes.
//
//   memtune_startup_bench [--kernel filter|dot] [--runs 20] [--dir DIR] [--json FILE] [--cpu-only]
//
// It first prepares DIR (a profile store, and $MEMTUNE_CACHE_DIR=DIR/cache
// unless set): one process tunes within a small budget and saves the entry
// (with --cpu-only: saves an entry for the default configuration and
// compiles it). Then each run spawns this program again (posix_spawn, the
// clock read just before) and the child times what an application does:
// driver and context, Session, the description, TunedKernel, the first
// choice (profile lookup, module load from the compile cache, per-problem
// setup), its own buffers, the first launch and a synchronize. memtune's
// part is everything but the driver and context and the application's
// buffers; its bar is 20 ms on an H100 host (small beside the driver's
// and context's 200+ ms).
//
// --cpu-only (no GPU, CI): the description, the lookup and the compile
// cache's read of the CUBIN, against a catalogue H100; no module, no launch.
#include "startup_child.hpp"

#include <CLI/CLI.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

extern char** environ;

namespace {

using memtune::bench::ChildOptions;
using memtune::bench::ChildReport;
using memtune::bench::monotonic_ns;

constexpr double kBudgetMs = 20.0;

nlohmann::json to_json(const ChildReport& r) {
  return {{"phases", r.phases}, {"origin", r.origin}, {"config", r.config}, {"note", r.note},
          {"nvrtc_loaded", r.nvrtc_loaded}};
}

// Runs this program as a child with `args`; returns its report and its exec -> exit time.
std::pair<nlohmann::json, double> spawn_child(std::vector<std::string> args, const std::string& out_file) {
  std::vector<std::string> argv{"/proc/self/exe"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--out", out_file, "--t0"});
  argv.emplace_back(); // the start time, filled in last
  std::vector<char*> raw;
  const std::int64_t t0 = monotonic_ns();
  argv.back() = std::to_string(t0);
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  pid_t pid = 0;
  if (const int e = ::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, raw.data(), environ); e != 0)
    throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(e));
  int status = 0;
  ::waitpid(pid, &status, 0);
  const double exit_ms = static_cast<double>(monotonic_ns() - t0) / 1e6;
  std::ifstream in(out_file);
  std::stringstream text;
  text << in.rdbuf();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("a child failed (status " + std::to_string(status) + "): " + text.str());
  return {nlohmann::json::parse(text.str()), exit_ms};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int child_main(const ChildOptions& o, bool prepare, const std::string& out_file, std::int64_t main_ns) {
  nlohmann::json j;
  int code = 0;
  try {
    j = to_json(prepare ? memtune::bench::prepare_store(o) : memtune::bench::run_child(o, main_ns));
  } catch (const std::exception& e) {
    j = {{"error", e.what()}};
    code = 1;
  }
  std::ofstream(out_file) << j.dump() << "\n";
  return code;
}

} // namespace

int main(int argc, char** argv) {
  const std::int64_t main_ns = monotonic_ns(); // first: what the child reports as exec -> main
  ChildOptions o;
  bool child = false, prepare = false;
  std::string out_file, dir, json_file;
  std::size_t runs = 20;
  CLI::App app{"memtune start-up cost: exec to the first launch of a tuned kernel, by phase"};
  app.add_option("--kernel", o.kernel, "filter (built-in) or dot (examples/dot_app/dot.json)")
      ->check(CLI::IsMember({"filter", "dot"}));
  app.add_option("--spec", o.spec, "the dot kernel's description file");
  app.add_option("--n", o.n, "problem size");
  app.add_option("--runs", runs, "fresh processes timed")->check(CLI::Range(1, 1000));
  app.add_option("--dir", dir, "working folder: profile store and compile cache (default: a temporary one)");
  app.add_option("--json", json_file, "also write the medians as JSON");
  app.add_flag("--cpu-only", o.cpu_only, "no GPU: description, lookup and compile-cache read only");
  app.add_flag("--child", child)->group("");
  app.add_flag("--prepare", prepare)->group("");
  app.add_option("--out", out_file)->group("");
  app.add_option("--t0", o.t0_ns)->group("");
  CLI11_PARSE(app, argc, argv);
  if (o.spec.empty()) o.spec = MEMTUNE_STARTUP_DOT_SPEC;

  if (child) {
    o.store = std::filesystem::path(dir) / "startup.memtune.json";
    return child_main(o, prepare, out_file, main_ns);
  }

  try {
    if (dir.empty()) dir = (std::filesystem::temp_directory_path() / ("memtune-startup-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    if (!std::getenv("MEMTUNE_CACHE_DIR")) ::setenv("MEMTUNE_CACHE_DIR", (dir + "/cache").c_str(), 1);
    std::vector<std::string> args{"--child", "--kernel", o.kernel, "--spec", o.spec.string(), "--n", std::to_string(o.n),
                                  "--dir", dir};
    if (o.cpu_only) args.emplace_back("--cpu-only");
    const std::string out_file_path = dir + "/child.json";

    std::vector<std::string> prepare_args = args;
    prepare_args.emplace_back("--prepare");
    const auto [prepared, prepare_ms] = spawn_child(prepare_args, out_file_path);
    std::cout << "prepared " << dir << " in " << static_cast<int>(prepare_ms) << " ms: " << prepared.value("config", "")
              << " (" << prepared.value("origin", "") << ")\n";

    std::map<std::string, std::vector<double>> phases;
    std::vector<double> totals, exits;
    std::string origin, config, note;
    std::size_t nvrtc_loads = 0;
    for (std::size_t i = 0; i < runs; ++i) {
      const auto [report, exit_ms] = spawn_child(args, out_file_path);
      double total = 0;
      for (const auto& p : memtune::bench::startup_phases()) {
        if (!report.at("phases").contains(p.key)) continue;
        const double ms = report.at("phases").at(p.key).get<double>();
        phases[p.key].push_back(ms);
        if (p.memtune) total += ms;
      }
      totals.push_back(total);
      exits.push_back(exit_ms);
      origin = report.value("origin", "");
      config = report.value("config", "");
      note = report.value("note", "");
      nvrtc_loads += report.value("nvrtc_loaded", false) ? 1 : 0;
    }

    std::printf("\nmemtune start-up: %s n=%lld, %zu fresh processes, warm compile cache; configuration %s (%s)%s%s\n",
                o.kernel.c_str(), static_cast<long long>(o.n), runs, config.c_str(), origin.c_str(),
                note.empty() ? "" : "\n  ", note.c_str());
    std::printf("%-46s %9s %9s %9s  %s\n", "phase", "median ms", "min ms", "max ms", "memtune's");
    nlohmann::json medians = nlohmann::json::object();
    for (const auto& p : memtune::bench::startup_phases()) {
      const auto it = phases.find(p.key);
      if (it == phases.end()) continue;
      const auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
      const double m = median(it->second);
      medians[p.key] = m;
      std::printf("%-46s %9.2f %9.2f %9.2f  %s\n", p.label, m, *lo, *hi, p.memtune ? "yes" : "no");
    }
    const double total = median(totals), exit_ms = median(exits);
    std::printf("%-46s %9.2f %9s %9s  %s\n", "memtune's part (sum of its phases)", total, "", "",
                o.cpu_only ? "(cpu-only: no module load, no launch)"
                           : (total <= kBudgetMs ? "PASS (<= 20 ms)" : "OVER the 20 ms bar"));
    std::printf("%-46s %9.2f\n", "exec -> exit (the whole process)", exit_ms);
    std::printf("NVRTC loaded in %zu of %zu runs%s\n", nvrtc_loads, runs,
                nvrtc_loads ? " (a compile-cache miss, or an NVRTC the version memo does not know)" : "");

    if (!json_file.empty()) {
      const nlohmann::json j{{"kernel", o.kernel},    {"n", o.n},          {"runs", runs},
                             {"origin", origin},      {"config", config},  {"cpu_only", o.cpu_only},
                             {"phases_ms", medians},  {"memtune_ms", total}, {"exec_to_exit_ms", exit_ms},
                             {"budget_ms", kBudgetMs}, {"nvrtc_loads", nvrtc_loads}};
      std::ofstream(json_file) << j.dump(2) << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "memtune_startup_bench: " << e.what() << "\n";
    return 1;
  }
}
