#pragma once
// The journal of a tuning run: one JSON line per finished candidate, appended,
// flushed and fsynced as soon as the candidate ends, after a header line that
// says which run it is. A run killed at any moment (kill -9, a power cut)
// loses at most the candidate in flight; the next run with the same journal
// resumes it: the same search (grid order; random and bayes replayed from
// their seed, the journal answering every configuration it holds), with no
// candidate measured twice, and the same result as a run never interrupted.
//
// File format (journal_version 1), one JSON object per line:
//   {"journal": "memtune", "journal_version": 1, "tool": "memtune 0.1.0",
//    "description": {"name": "filter", "fingerprint": "..."}, "problem": {"n": 16777216, "taps": 21},
//    "mode": "measured", "target": "local", "device": {"name": ..., "compute_capability": "9.0", "sm_count": 132},
//    "compiled_for": 90, "space_digest": "...", "space": {...}, "bytes_moved": 134217728,
//    "strategy": "grid", "seed": 1, "model_prior": true,
//    "measure": {"flush_l2": true, ...}, "shard": null, "started_at": "2026-11-24T10:00:00Z"}
//   {"setup": {"ceiling": {...}, "same_size_copy": {...}, "reference_time_s": 4.9e-05,
//              "times": {...}}}                                                     (measured runs, once)
//   {"candidate": 0, "config": {"block_size": 32, ...}, "status": "ok", "reason": "", "timing": {...}, ...}
// The setup line's "times" say where the set-up went (setup_times_json,
// output/setup_times.hpp; not read back). A candidate line also has "device"
// (the GPU ordinal it ran on, when it ran) and "elapsed_s" (seconds since
// this process opened the journal, when it ended: time to solution; not read
// back). Candidates are in the order they ended, which on several GPUs is not
// the order proposed.
//
// "space" (the space itself) and "bytes_moved" are not compared on resume:
// they let `memtune merge` read a journal as a recording (journal_recording.hpp).
//
// A journal of another description (fingerprint), problem, GPU, target, space,
// strategy, seed or measurement protocol is refused: JournalError names the
// file, the line and the field. So is a corrupt line; only a last line cut
// off by a kill is dropped (that candidate is measured again).
#include <memtune/measure/evaluation.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/search/space.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

struct TuningResult;
struct SearchOptions;
struct MeasureOptions;

inline constexpr int kJournalVersion = 1;

struct JournalOptions {
  // Where candidates are appended; an existing journal is resumed.
  std::optional<std::filesystem::path> file;
  // --resume: the file must exist (a mistyped name must not start over).
  bool must_exist = false;
  // Remove the file once the run has finished (the journal of a --record run:
  // the recording replaces it).
  bool remove_when_finished = false;
};

// "run.journal:7: field 'timing.median_s': expected a number". A bad file,
// like every reader's InputError (exit 1 in the CLI).
class JournalError : public InputError {
public:
  using InputError::InputError;
};

// The header line of a run about to start (everything but the candidates).
[[nodiscard]] nlohmann::json journal_header(const TuningResult& result, const SearchOptions& search,
                                           const MeasureOptions& measure);
// The digest that names a space: axes, values, constraints, pruned axes.
[[nodiscard]] std::string space_digest(const search::Space& space);

// One finished candidate as a journal line, and back. What the journal does
// not keep is recomputed on resume: occupancy (from the resources) and the
// model's facts.
[[nodiscard]] nlohmann::json journal_line(const search::Space& space, const Evaluation& e, std::size_t index);
// Throws JournalError(file, line, field) for a line that is not one.
[[nodiscard]] Evaluation evaluation_from_journal_line(const search::Space& space, const nlohmann::json& line,
                                                      const std::string& file, std::size_t line_number);

// A journal as read from disk (also what `memtune merge` reads).
struct JournalContents {
  nlohmann::json header;
  std::optional<nlohmann::json> setup;
  struct Line {
    std::size_t number = 0; // 1-based line of the file
    nlohmann::json value;
  };
  std::vector<Line> candidates;
  // Bytes of the file up to the end of its last complete line, and whether
  // something after it (a line cut off by a kill) was dropped.
  std::size_t complete_bytes = 0;
  bool dropped_cut_line = false;
};
// Throws JournalError: unreadable, a line that is not JSON (or nested deeper
// than io::JsonLimits allows), no header. parse_journal reads the text of one
// (`origin` names it in errors).
[[nodiscard]] JournalContents read_journal(const std::filesystem::path& file);
[[nodiscard]] JournalContents parse_journal(const std::string& text, const std::string& origin);

// What a run resumes from a journal: its header checked against the run's
// `header` (JournalError naming the first field that differs), every candidate
// line read in `space` (once each), the setup line checked.
struct JournalResume {
  std::map<search::Config, Evaluation> journaled;
  std::optional<nlohmann::json> setup;
};
[[nodiscard]] JournalResume resume_from(const JournalContents& contents, const nlohmann::json& header,
                                        const search::Space& space, const std::string& origin);

// The open journal of one run.
class Journal {
public:
  // Creates `file` with `header`, or resumes it: the recorded header must
  // match (else JournalError naming the first field that differs), every
  // candidate line must read in `space`. Holds an exclusive lock on the file
  // while open (a second run on the same journal is refused).
  Journal(const std::filesystem::path& file, const nlohmann::json& header, const search::Space& space,
          bool must_exist);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  // Candidates read from the file when it was opened.
  [[nodiscard]] std::size_t resumed() const { return resumed_; }
  // The journaled evaluation of `config`, once; nullopt when it is not journaled.
  std::optional<Evaluation> take(const search::Config& config);
  // Journaled candidates not taken (the resumed search did not propose them again).
  [[nodiscard]] std::size_t untaken() const { return journaled_.size(); }
  // The setup line of the run resumed, when it has one.
  [[nodiscard]] const std::optional<nlohmann::json>& setup() const { return setup_; }

  // Appends one line and makes it durable (write, fdatasync). Throws
  // JournalError when the disk refuses.
  void append_setup(const nlohmann::json& setup);
  void append(const Evaluation& e);
  // For the header: "resumed 120 candidates from run.journal" or "journal
  // run.journal"; after the search, also how many journaled ones it did not take.
  [[nodiscard]] std::string describe() const;

private:
  void open(const nlohmann::json& header, bool must_exist);
  void write_line(const nlohmann::json& line);
  std::filesystem::path file_;
  const search::Space& space_;
  int fd_ = -1;
  std::size_t resumed_ = 0;
  std::chrono::steady_clock::time_point opened_ = std::chrono::steady_clock::now();
  std::size_t next_index_ = 0;
  bool dropped_cut_line_ = false;
  std::map<search::Config, Evaluation> journaled_;
  std::optional<nlohmann::json> setup_;
};

} // namespace memtune
