// The output-file policy (io/atomic_file.hpp): any bytes, read as
// "KIND\nPATH\nCONTENT", name an output of one kind among a sandbox's
// fixtures (a FIFO, links to /dev/null and to a store, a dangling link, a
// folder, a store, a recording, a journal, notes) or anywhere; the content is
// also an existing file's. check_output and same_file must answer or throw
// InputError, never block or crash; holds_kind / what_it_holds must answer
// for any content. A write is made only inside the sandbox, only when
// check_output allowed it, and must then leave every fixture of another kind
// as it was (abort() otherwise, which libFuzzer reports).
#include "harness.hpp"

#include <memtune/io/atomic_file.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace {

namespace fs = std::filesystem;
using memtune::io::OutputKind;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Sandbox {
  fs::path root = fs::temp_directory_path() / ("memtune-fuzz-output-" + std::to_string(::getpid()));
  // The regular fixtures and what they hold.
  std::map<std::string, std::pair<OutputKind, std::string>> files{
      {"store.json", {OutputKind::profile_store, "{\"schema_version\": 1, \"entries\": []}\n"}},
      {"run.json", {OutputKind::recording, "{\"schema_version\": 1, \"space\": {}, \"trials\": []}\n"}},
      {"run.journal", {OutputKind::journal, "{\"bytes_moved\":1,\"journal\":\"memtune\",\"journal_version\":1}\n"}},
      {"notes.txt", {OutputKind::compile_cache, "notes"}}, // of no kind: never replaced by a kind but the cache's
  };
  Sandbox() { reset(); }
  void reset() {
    std::error_code ec;
    fs::remove_all(root, ec);
    fs::create_directories(root / "folder");
    for (const auto& [name, f] : files) std::ofstream(root / name, std::ios::binary) << f.second;
    ::mkfifo((root / "fifo").c_str(), 0644);
    fs::create_symlink("/dev/null", root / "null-link", ec);
    fs::create_symlink(root / "store.json", root / "store-link", ec);
    fs::create_symlink(root / "missing", root / "dangling", ec);
  }
  [[nodiscard]] bool intact(OutputKind written, const fs::path& target) const {
    if (!fs::is_fifo(root / "fifo") || !fs::is_directory(root / "folder") || !fs::is_symlink(root / "null-link") ||
        !fs::is_character_file("/dev/null"))
      return false;
    for (const auto& [name, f] : files) {
      std::error_code ec;
      if (f.first == written && fs::equivalent(root / name, target, ec)) continue; // its own kind: may be replaced
      if (written == OutputKind::compile_cache) continue;                    // the cache replaces what it is given
      if (slurp(root / name) != f.second) return false;
    }
    return true;
  }
};

OutputKind kind_of(unsigned char c) { return static_cast<OutputKind>(c % 9); }

} // namespace

MEMTUNE_FUZZ_TEXT(text) {
  static Sandbox sandbox;
  const std::size_t a = text.find('\n');
  const std::size_t b = a == std::string::npos ? std::string::npos : text.find('\n', a + 1);
  const OutputKind kind = kind_of(text.empty() ? 0 : static_cast<unsigned char>(text[0]));
  const std::string name = a == std::string::npos ? std::string{} : text.substr(a + 1, b == std::string::npos ? b : b - a - 1);
  const std::string content = b == std::string::npos ? std::string{} : text.substr(b + 1);
  (void)memtune::io::holds_kind(content, kind);
  (void)memtune::io::what_it_holds(content);
  if (name.find('\0') != std::string::npos) return;
  const fs::path inside = sandbox.root / name;
  (void)memtune::io::same_file(inside, sandbox.root / "store.json");
  (void)memtune::io::same_file(name.empty() ? fs::path("x") : fs::path(name), sandbox.root / "fifo");
  if (fs::path(name).is_absolute()) {
    // Checked, never written; devices only (a regular file of /proc may block a read).
    if (name.rfind("/dev/", 0) == 0) (void)memtune::io::check_output(name, kind);
    return;
  }
  // Only inside the sandbox: no "..", at most two levels.
  for (const auto& part : fs::path(name)) if (part == "..") return;
  if (std::distance(fs::path(name).begin(), fs::path(name).end()) > 3) return;
  const fs::path target = memtune::io::check_output(inside, kind);
  memtune::io::write_file_atomically(inside, content, kind, memtune::io::Durability::no_fsync);
  if (!sandbox.intact(kind, target)) std::abort();
  sandbox.reset();
}
