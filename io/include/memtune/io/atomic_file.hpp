#pragma once
// The output-file policy: the one way memtune writes a file (profile stores,
// recordings, journals, HTML reports, exports, probe results, target
// profiles, CSV tables, compile-cache entries).
//
// - Each writer says what it writes (OutputKind). An existing file is
//   replaced only when it is empty or of that kind: an HTML report never lands
//   on a profile store, a recording never on a report, a journal is only ever
//   a journal. A file memtune did not write is never replaced.
// - A symbolic link is followed (its target is written, the link stays; a
//   dangling link creates its target). A folder, a device (/dev/null,
//   /dev/full), a FIFO or a socket is refused: memtune writes regular files
//   only, and nothing is passed through to standard output.
// - check_output() runs before the work that produces the file: the folder
//   exists or can be created and is writable, the file system is not
//   read-only and has some free space, the file is writable and of the
//   writer's kind. A long run does not fail at its end.
// - The write is atomic: a temporary file in the same folder, written and
//   fsynced, then renamed over the file (and the folder fsynced). A reader
//   sees the old or the new content, never a mix; a writer killed at any
//   moment, or a full disk, leaves the old file. Errors name the file and give
//   the system's reason (strerror).
//
// Stores that several processes update (profile stores) add a lock:
//
//   io::update_file_locked("app.memtune.json", [](const std::optional<std::string>& current) {
//     Store s = current ? parse(*current) : Store{};   // throw to leave the file untouched
//     s.add(entry);
//     return s.dump();
//   });
//
// A symbolic link is followed: the file it points to is replaced and the link
// stays. A path naming a folder ("out/", an existing directory) is refused
// before anything is created.
#include <memtune/io/errors.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace memtune::io {

// What a writer writes. Recognised in an existing file by its content
// (holds_kind): JSON documents by their top-level members, a journal by its
// header line, a report by its HTML head, a CSV table by its first line.
enum class OutputKind {
  profile_store,      // {"schema_version", "entries": [...]}: --save, merge into a store
  recording,          // {"schema_version", "space", "trials": [...]}: --record, merge -o, import -o
  journal,            // JSON lines, the first {"journal": "memtune", ...}: --journal, --resume
  html_report,        // "<!DOCTYPE html>" ... "memtune report": --report, report -o
  kernel_tuner_cache, // {"tune_params_keys", "cache": {...}}: export -o
  probe_results,      // {"command": "probe", ...}: probe --json
  target_profile,     // {"cc_major", "sm_count", ...}: probe --save-target
  csv_table,          // text whose first line is a CSV header: probe --csv
  compile_cache,      // an entry in memtune's own cache folder: replaced whatever it holds
};
// "profile store", "recording", "journal", "HTML report", ...
[[nodiscard]] const char* to_string(OutputKind kind);

// Whether `text`, an existing file's content, may be replaced by a file of
// `kind`: it is empty (or white space only: `touch FILE`), or it is one. A
// journal whose header line was cut off by a kill (no newline yet, a prefix
// of a header) is a journal.
[[nodiscard]] bool holds_kind(std::string_view text, OutputKind kind);
// What `text` is, for messages: "a profile store", "a recording", ..., "a
// JSON document memtune did not write", "text memtune did not write".
[[nodiscard]] std::string what_it_holds(std::string_view text);

// The checks made before a run, so that it does not fail at its end: see
// the policy above. Returns the file that will be written (links followed).
// Throws InputError naming `file` and the reason (a folder, a device, a
// FIFO, a file of another kind, no permission, a read-only file system, no
// space left: with the system's reason).
std::filesystem::path check_output(const std::filesystem::path& file, OutputKind kind);

enum class Durability {
  fsync,    // survives a power cut: the file and its folder are fsynced (stores, recordings)
  no_fsync, // survives a killed process only (caches that can be rebuilt)
};

// Replaces (or creates) `file` with `text` of `kind`, after check_output
// (made again: the file may have changed during the run). Creates missing
// parent folders. Throws InputError naming the file (a folder, a device, a
// file of another kind, no permission, disk full: with strerror), leaving any
// existing file as it was.
void write_file_atomically(const std::filesystem::path& file, std::string_view text, OutputKind kind,
                           Durability durability = Durability::fsync);

// Read-modify-write under an exclusive advisory lock on "<file>.lock" (next
// to the file a link points to, so every name of one store shares the lock).
// `update` gets the current content (nullopt when the file does not exist) and
// returns the new one; an exception from it leaves the file untouched and
// propagates. Temporary files of writers killed earlier are removed first.
// The existing file must be of `kind` (check_output).
void update_file_locked(const std::filesystem::path& file, OutputKind kind,
                        const std::function<std::string(const std::optional<std::string>& current)>& update,
                        Durability durability = Durability::fsync);

// The file that writing `file` replaces: symbolic links followed (a dangling
// link gives its target). Throws InputError when `file` names a folder or an
// existing file that is not a regular file (a device, FIFO or socket). The
// shape of the name only; check_output makes every check.
[[nodiscard]] std::filesystem::path output_file(const std::filesystem::path& file);

// Whether two paths name the same file once links are followed (the same
// inode: also a hard link), also when neither exists yet. Two outputs of one
// command must not (the CLI refuses them before the run).
[[nodiscard]] bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// The temporary-file name prefix of `file`: "<name>.tmp-". Temporaries are
// "<name>.tmp-<pid>-<counter>" in the file's folder.
[[nodiscard]] std::string temporary_prefix(const std::filesystem::path& file);

} // namespace memtune::io
