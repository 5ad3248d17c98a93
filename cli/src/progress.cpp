#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace memtune::cli {
namespace {

std::string duration_text(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) % 3600 / 60);
  return buf;
}

} // namespace

bool stderr_is_terminal(const std::ostream& s) {
  return (&s == &std::cerr || &s == &std::clog) && ::isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(std::ostream& out, bool terminal, double redraws_per_second, Clock clock)
    : out_(out), terminal_(terminal), min_interval_(1.0 / redraws_per_second),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

double ProgressLine::seconds_since(std::chrono::steady_clock::time_point t) const {
  return std::chrono::duration<double>(clock_() - t).count();
}

void ProgressLine::phase(const std::string& name, std::optional<std::size_t> total, const std::string& unit, bool counts_failures) {
  if (open_) finish();
  phase_ = name;
  unit_ = unit;
  now_.clear();
  counts_failures_ = counts_failures;
  total_ = total;
  done_ = failures_ = 0;
  best_s_.reset();
  started_ = clock_();
  drawn_ = false;
  open_ = true;
  if (terminal_) draw(true);
  else out_ << "memtune: " << phase_ << ": " << (total_ ? std::to_string(*total_) + " " : std::string{}) << unit_ << "\n"
            << std::flush;
}

void ProgressLine::update(std::size_t done, std::size_t failures, std::optional<double> best_s) {
  if (done_ == 0 && done > 0) first_step_ = clock_();
  done_ = done;
  failures_ = failures;
  best_s_ = best_s;
  if (terminal_) draw(false);
}

void ProgressLine::note(const std::string& now) {
  now_ = now;
  if (terminal_) draw(true);
  else out_ << "memtune: " << phase_ << " " << done_ + 1 << (total_ ? "/" + std::to_string(*total_) : std::string{})
            << ": " << now_ << "\n" << std::flush;
}

std::string ProgressLine::text() const {
  std::string s = phase_ + ": " + std::to_string(done_);
  if (total_ && *total_ > 0) {
    char pct[16];
    std::snprintf(pct, sizeof pct, " (%.0f%%)", 100.0 * static_cast<double>(done_) / static_cast<double>(*total_));
    s += "/" + std::to_string(*total_) + " " + unit_ + pct;
  } else {
    s += " " + unit_;
  }
  if (counts_failures_) s += ", " + std::to_string(failures_) + " failed";
  if (best_s_) {
    char best[32];
    std::snprintf(best, sizeof best, ", best %.2f us", *best_s_ * 1e6);
    s += best;
  }
  s += ", " + duration_text(seconds_since(started_));
  // The rate is taken from the first finished step on: compiles and the copy
  // ceiling before it would make the first estimates far too long.
  if (total_ && done_ >= 2 && done_ < *total_) {
    const double per_step = seconds_since(first_step_) / static_cast<double>(done_ - 1);
    s += ", ETA " + duration_text(per_step * static_cast<double>(*total_ - done_));
  }
  if (!now_.empty()) s += ": " + now_;
  return s;
}

void ProgressLine::draw(bool force) {
  const auto now = clock_();
  if (!force && drawn_ && now - last_draw_ < min_interval_) return;
  out_ << "\r\x1b[K" << text() << std::flush;
  last_draw_ = now;
  drawn_ = true;
}

void ProgressLine::finish(const std::string& summary) {
  if (!open_) return;
  open_ = false;
  const std::string line = summary.empty() ? text() : phase_ + ": " + summary;
  if (terminal_) out_ << "\r\x1b[K" << line << "\n" << std::flush;
  else out_ << "memtune: " << line << "\n" << std::flush;
}

LineCallbackBuf::~LineCallbackBuf() {
  if (!pending_.empty()) on_line_(pending_);
}

LineCallbackBuf::int_type LineCallbackBuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  if (traits_type::to_char_type(ch) == '\n') {
    on_line_(pending_);
    pending_.clear();
  } else {
    pending_ += traits_type::to_char_type(ch);
  }
  return ch;
}

} // namespace memtune::cli
