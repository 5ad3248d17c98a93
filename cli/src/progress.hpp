#pragma once
// Progress on stderr while tuning or probing. On a terminal: one line redrawn
// in place ("\r", erase to the end), at most `redraws_per_second` times a
// second, with done/total, failures so far, the best so far, elapsed time and
// an ETA. Elsewhere (a pipe, a log file, CI): a plain line when a phase starts
// and one when it ends. -q: none (the caller makes no ProgressLine).
//
//   ProgressLine p(std::cerr, stderr_is_terminal(std::cerr));
//   p.phase("search", 288, "candidates");
//   p.update(done, failures, best_s);   // after each candidate
//   p.finish("288 evaluated");          // the phase's closing line
#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>

namespace memtune::cli {

// True when `s` is std::cerr (or std::clog) and file descriptor 2 is a terminal.
bool stderr_is_terminal(const std::ostream& s);

class ProgressLine {
public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  ProgressLine(std::ostream& out, bool terminal, double redraws_per_second = 5.0, Clock clock = {});

  // Starts a phase of `total` steps (nullopt: unknown; 0: none, every
  // configuration pruned). A pending line is finished first.
  // counts_failures: show "N failed" (candidates can fail; probes abort).
  void phase(const std::string& name, std::optional<std::size_t> total, const std::string& unit = "candidates",
             bool counts_failures = true);
  // After a step: how many are done, failed so far, and the best time so far [s].
  void update(std::size_t done, std::size_t failures, std::optional<double> best_s);
  // What the phase is doing now ("bank f32-stride32"): shown after the
  // counters on a terminal, a plain line elsewhere.
  void note(const std::string& now);
  // Shows the phase's state once more (always, even if just drawn) and ends the
  // line; `summary` replaces the counters when given.
  void finish(const std::string& summary = {});

  // The line as drawn now (without control characters), for tests.
  [[nodiscard]] std::string text() const;

private:
  void draw(bool force);
  double seconds_since(std::chrono::steady_clock::time_point t) const;

  std::ostream& out_;
  bool terminal_;
  std::chrono::duration<double> min_interval_;
  Clock clock_;
  std::string phase_, unit_, now_;
  bool counts_failures_ = true;
  std::optional<std::size_t> total_;
  std::size_t done_ = 0, failures_ = 0;
  std::optional<double> best_s_;
  std::chrono::steady_clock::time_point started_, first_step_, last_draw_;
  bool drawn_ = false, open_ = false;
};

// A stream buffer that hands each complete line written to it to a callback,
// e.g. the probe runner's "probe: bank f32-stride32 ..." lines to note().
class LineCallbackBuf : public std::streambuf {
public:
  explicit LineCallbackBuf(std::function<void(const std::string&)> on_line) : on_line_(std::move(on_line)) {}
  ~LineCallbackBuf() override;

protected:
  int_type overflow(int_type ch) override;

private:
  std::function<void(const std::string&)> on_line_;
  std::string pending_;
};

} // namespace memtune::cli
