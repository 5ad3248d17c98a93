#include "progress.hpp"

#include <doctest/doctest.h>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>

using namespace memtune::cli;
using namespace std::chrono_literals;

namespace {
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  ProgressLine::Clock fn() {
    return [this] { return now; };
  }
};
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
} // namespace

TEST_CASE("progress on a terminal: redrawn in place, at most 5 times a second, with done/total, best, elapsed, ETA") {
  FakeClock clock;
  std::ostringstream out;
  ProgressLine line(out, /*terminal=*/true, 5.0, clock.fn());
  line.phase("measuring filter (grid)", 100);
  for (std::size_t i = 1; i <= 50; ++i) {
    clock.now += 10ms; // 100 updates a second
    line.update(i, i / 10, 4.5e-5);
  }
  // 0.5 s of updates: the phase's first draw plus at most one per 0.2 s.
  CHECK(count(out.str(), "\r\x1b[K") <= 4);
  CHECK(out.str().find('\n') == std::string::npos);
  const std::string now = line.text();
  CHECK(now.find("50/100 candidates (50%)") != std::string::npos);
  CHECK(now.find("5 failed") != std::string::npos);
  CHECK(now.find("best 45.00 us") != std::string::npos);
  CHECK(now.find("0.5 s") != std::string::npos);
  CHECK(now.find("ETA 0.5 s") != std::string::npos); // 49 steps in 0.49 s, 50 to go
  line.finish("100 evaluated");
  CHECK(out.str().ends_with("\r\x1b[Kmeasuring filter (grid): 100 evaluated\n"));
}

TEST_CASE("a phase of no candidates (every configuration pruned) says 0, not a count left blank") {
  FakeClock clock;
  std::ostringstream out;
  ProgressLine line(out, /*terminal=*/false, 5.0, clock.fn());
  line.phase("measuring conv (grid)", 0);
  line.finish("0 evaluated");
  CHECK(out.str().starts_with("memtune: measuring conv (grid): 0 candidates\n"));
  ProgressLine on_terminal(out, /*terminal=*/true, 5.0, clock.fn());
  on_terminal.phase("measuring conv (grid)", 0);
  CHECK(on_terminal.text().starts_with("measuring conv (grid): 0 candidates, 0 failed"));
  on_terminal.phase("probe", std::nullopt, "probes", false); // unknown: no count
  CHECK(on_terminal.text().starts_with("probe: 0 probes, "));
}

TEST_CASE("progress elsewhere: a plain line when a phase starts and when it ends, nothing in between") {
  FakeClock clock;
  std::ostringstream out;
  ProgressLine line(out, /*terminal=*/false, 5.0, clock.fn());
  line.phase("predicting filter (grid)", 288);
  for (std::size_t i = 1; i <= 288; ++i) line.update(i, 0, 3e-6);
  line.finish("288 evaluated");
  line.phase("probe", 3, "probes", false);
  line.note("copy");
  line.update(1, 0, std::nullopt);
  line.note("bank f32-linear");
  line.finish();
  CHECK(out.str() == "memtune: predicting filter (grid): 288 candidates\n"
                     "memtune: predicting filter (grid): 288 evaluated\n"
                     "memtune: probe: 3 probes\n"
                     "memtune: probe 1/3: copy\n"
                     "memtune: probe 2/3: bank f32-linear\n"
                     "memtune: probe: 1/3 probes (33%), 0.0 s: bank f32-linear\n");
}

TEST_CASE("progress under a pseudo-terminal: memtune redraws one line on stderr; -q prints none") {
  for (const bool quiet : {false, true}) {
    int master = -1;
    std::fflush(nullptr); // the child must not flush this process's buffered output into the terminal
    const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // stdout to /dev/null: the pty then carries stderr only.
      freopen("/dev/null", "w", stdout);
      execl(MEMTUNE_CLI_BINARY, "memtune", "filter", "--n", "64K", "--target", "k20", "--strategy", "random", "--budget",
            "12", quiet ? "-q" : "--seed", quiet ? "--seed" : "1", quiet ? "1" : nullptr, nullptr);
      _exit(127);
    }
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);
    CAPTURE(got);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    if (quiet) {
      CHECK(got.empty());
    } else {
      CHECK(got.find("\r\x1b[Kpredicting filter (random): 0/12 candidates (0%)") != std::string::npos);
      CHECK(got.find("predicting filter (random): 12 evaluated, 0 failed, best ") != std::string::npos);
      CHECK(got.find("memtune: ") == std::string::npos); // not the plain per-phase lines
    }
  }
}
