#include <memtune/model/install_layout.hpp>

#include <mutex>

namespace memtune {
namespace fs = std::filesystem;

namespace {

std::mutex prefix_mutex;
std::optional<fs::path>& registered_prefix() {
  static std::optional<fs::path> prefix;
  return prefix;
}

void push_unique(std::vector<fs::path>& v, const fs::path& p) {
  for (const auto& q : v)
    if (q == p) return;
  v.push_back(p);
}

} // namespace

std::optional<fs::path> running_program_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec || self.empty()) return std::nullopt;
  return self.parent_path();
}

void register_package_prefix(const fs::path& prefix) {
  const std::lock_guard lock(prefix_mutex);
  registered_prefix() = prefix.lexically_normal();
}

std::vector<fs::path> install_prefix_candidates() {
  std::vector<fs::path> prefixes;
  if (const auto dir = running_program_dir()) {
    push_unique(prefixes, dir->parent_path());
    push_unique(prefixes, dir->parent_path().parent_path());
  }
  const std::lock_guard lock(prefix_mutex);
  if (registered_prefix()) push_unique(prefixes, *registered_prefix());
  return prefixes;
}

std::vector<fs::path> data_candidates(const fs::path& relative) {
  std::vector<fs::path> out;
  for (const auto& prefix : install_prefix_candidates()) out.push_back(prefix / "share" / "memtune" / relative);
  return out;
}

std::vector<fs::path> worker_candidates() {
  std::vector<fs::path> out;
  if (const auto dir = running_program_dir()) out.push_back(*dir / "memtune-worker");
  for (const auto& prefix : install_prefix_candidates())
    out.push_back(prefix / "libexec" / "memtune" / "memtune-worker");
  return out;
}

} // namespace memtune
