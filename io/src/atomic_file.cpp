#include <memtune/io/atomic_file.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/io/json_document.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace memtune::io {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what, int error = errno) {
  throw InputError(file.string(), 0, "", what + ": " + std::strerror(error));
}

void check_content(std::string_view text, const fs::path& shown, OutputKind kind) {
  if (holds_kind(text, kind)) return;
  // JSON that does not parse (a damaged store, say): the line and the reason.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    try {
      (void)parse_json(std::string(text), shown.string());
    } catch (const InputError& e) {
      throw InputError(e.file(), e.line(), e.field(),
                       e.message() + "; not replaced by a " + to_string(kind) + ": move it or choose another file");
    }
  }
  throw InputError(shown.string(), 0, "",
                   std::string("exists and is not a memtune ") + to_string(kind) + ", so it is not replaced (it holds " +
                       what_it_holds(text) + "): move it or choose another file");
}

// Follows symbolic links (at most 40, as the kernel does) without requiring
// the final file to exist.
fs::path resolve_links(fs::path p) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.lexically_normal();
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return p;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw InputError(p.string(), 0, "", "too many levels of symbolic links");
}

// The folder a new file would be created in: the nearest existing one of
// its parents (create_parent makes the rest).
fs::path existing_folder(const fs::path& file) {
  // A relative path's missing folders end at its first component, whose
  // folder is the working directory ("new/out.json" is created in ".").
  fs::path folder = file.parent_path();
  std::error_code ec;
  while (!folder.empty() && !fs::exists(folder, ec) && folder.parent_path() != folder) folder = folder.parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

// Below this a write of a report or a recording is likely to fail: refused
// before the run rather than at its end.
constexpr unsigned long long kMinimumFreeBytes = 64 * 1024;

void check_folder(const fs::path& file, const fs::path& shown) {
  const fs::path folder = existing_folder(file);
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw InputError(shown.string(), 0, "", "cannot be created: " + folder.string() + " is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    fail(shown, "cannot be written in the folder " + folder.string());
  struct statvfs vfs {};
  if (::statvfs(folder.c_str(), &vfs) != 0) return; // nothing known: the write itself will say
  if (vfs.f_flag & ST_RDONLY) fail(shown, "cannot be written", EROFS);
  const unsigned long long free_bytes = static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize;
  if (free_bytes < kMinimumFreeBytes)
    fail(shown, "cannot be written (" + std::to_string(free_bytes) + " bytes free in " + folder.string() + ")", ENOSPC);
}

void check_kind(const fs::path& target, const fs::path& shown, OutputKind kind) {
  if (kind == OutputKind::compile_cache) return;
  std::string text;
  try {
    text = read_text_file(target);
  } catch (const InputError& e) {
    throw InputError(shown.string(), 0, "", "exists and cannot be read to check what it holds: " + e.message());
  }
  check_content(text, shown, kind);
}

void create_parent(const fs::path& file) {
  const fs::path parent = file.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw InputError(file.string(), 0, "", "cannot create the folder " + parent.string() + ": " + ec.message());
}

void write_all(int fd, std::string_view text, const fs::path& shown) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(shown, "cannot write");
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void sync_folder(const fs::path& file) {
  const fs::path parent = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return; // the rename happened; a folder we cannot open cannot be synced either
  ::fsync(fd);
  ::close(fd);
}

// Holds an exclusive flock on a lock file for its lifetime.
class LockFile {
public:
  explicit LockFile(const fs::path& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(path, "cannot create the lock file");
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd_);
      fail(path, "cannot lock", error);
    }
  }
  ~LockFile() { ::close(fd_); } // closing releases the lock
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

private:
  int fd_ = -1;
};

// Under the lock no live writer of this store holds a temporary file, so one
// that is there was left by a writer killed between creating and renaming it.
// Also those of memtune 0.1.0's profile store ("<name>.tmp<digits>").
void remove_stale_temporaries(const fs::path& file) {
  const std::string prefix = temporary_prefix(file);
  const std::string old_prefix = file.filename().string() + ".tmp";
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    bool stale = false;
    if (name.rfind(prefix, 0) == 0) {
      // "<pid>-<counter>": a temporary of a process still alive may belong to an
      // unlocked writer (write_file_atomically) in the middle of its write.
      const std::string rest = name.substr(prefix.size());
      const long pid = std::strtol(rest.c_str(), nullptr, 10);
      stale = pid <= 0 || (pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
    } else if (name.size() > old_prefix.size() && name.rfind(old_prefix, 0) == 0) {
      stale = name.find_first_not_of("0123456789", old_prefix.size()) == std::string::npos;
    }
    if (stale) fs::remove(it->path(), ec);
    ec.clear();
  }
}

} // namespace

std::string temporary_prefix(const fs::path& file) { return file.filename().string() + ".tmp-"; }

fs::path output_file(const fs::path& file) {
  const std::string name = file.string();
  if (name.empty()) throw InputError("", 0, "", "an empty file name");
  if (name.back() == '/' || !file.has_filename())
    throw InputError(name, 0, "", "names a folder (it ends with '/'): give the name of a file in it");
  const fs::path target = resolve_links(file);
  std::error_code ec;
  const auto status = fs::status(target, ec);
  if (fs::is_directory(status)) throw InputError(name, 0, "", "is a directory: give the name of a file in it");
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw InputError(name, 0, "", "is not a regular file (a device, socket or pipe): memtune replaces only files");
  return target;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const fs::path ra = resolve_links(a), rb = resolve_links(b);
  if (fs::exists(ra, ec) && fs::exists(rb, ec)) return fs::equivalent(ra, rb, ec);
  return fs::weakly_canonical(fs::absolute(ra, ec), ec) == fs::weakly_canonical(fs::absolute(rb, ec), ec);
}

fs::path check_output(const fs::path& file, OutputKind kind) {
  const fs::path target = output_file(file);
  std::error_code ec;
  if (fs::exists(target, ec)) {
    check_kind(target, file, kind);
    if (::access(target.c_str(), W_OK) != 0) fail(file, "cannot be written");
  }
  check_folder(target, file);
  return target;
}

namespace {

// The atomic replace itself, once the checks are made; `file` is shown in errors.
void replace_file(const fs::path& target, const fs::path& file, std::string_view text, Durability durability) {
  create_parent(target);
  static std::atomic<unsigned long> counter{0};
  const fs::path tmp = target.parent_path() / (temporary_prefix(target) + std::to_string(::getpid()) + "-" +
                                               std::to_string(counter.fetch_add(1)));
  // A replaced file keeps its permissions (a private store stays private).
  struct stat existing {};
  const mode_t mode = ::stat(target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0666;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) fail(file, "cannot create a temporary file in " + target.parent_path().string());
  try {
    if (mode != 0666) ::fchmod(fd, mode); // open() applied the umask
    write_all(fd, text, file);
    if (durability == Durability::fsync && ::fsync(fd) != 0) fail(file, "cannot write (fsync)");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    fail(file, "cannot write", error);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    fail(file, "cannot replace the file", error);
  }
  if (durability == Durability::fsync) sync_folder(target);
}

} // namespace

void write_file_atomically(const fs::path& file, std::string_view text, OutputKind kind, Durability durability) {
  replace_file(check_output(file, kind), file, text, durability);
}

void update_file_locked(const fs::path& file, OutputKind kind,
                        const std::function<std::string(const std::optional<std::string>&)>& update,
                        Durability durability) {
  const fs::path target = output_file(file);
  check_folder(target, file);
  create_parent(target);
  const LockFile lock(fs::path(target.string() + ".lock"));
  remove_stale_temporaries(target);
  std::optional<std::string> current;
  std::error_code ec;
  if (fs::exists(target, ec)) {
    current = read_text_file(target);
    check_content(*current, file, kind);
  }
  const std::string next = update(current);
  replace_file(target, file, next, durability);
}

} // namespace memtune::io
