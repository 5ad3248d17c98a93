#!/usr/bin/env python3
"""Checks memtune HTML reports in headless Chromium (Debian's `chromium`).

For each report: the file names no http:// or https:// resource; the page
loads with no console message (errors, uncaught exceptions: the report logs
nothing when it works) and makes no network request (Chromium's NetLog, the
page's requests only); every figure holds a plot, and every plot (<svg
class="plot">) in the DOM after the scripts ran has drawn elements; a
screenshot PNG is written when --screenshots DIR is given.

  scripts/check_report_html.py r1.html r2.html [--screenshots DIR] [--height 2400]

Exit 0: all passed; 1: a check failed (each failure printed); 77: Chromium is
not installed or cannot start here (nothing was checked: say so, skip).
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Chromium's own background traffic (updates, sign-in) is off; the NetLog
# check below still looks only at requests whose top frame is the file.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
         "--disable-extensions", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


class PlotCounter(html.parser.HTMLParser):
    """Counts figures, plots and the elements drawn inside each plot."""

    def __init__(self):
        super().__init__()
        self.figures = 0
        self.figures_with_plot = 0
        self.in_figure = False
        self.figure_has_plot = False
        self.plots = []          # drawn elements per plot
        self.depth = 0           # nesting inside the current plot (0: outside)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figures += 1
            self.in_figure, self.figure_has_plot = True, False
        if self.depth:
            self.depth += 1
            if tag in ("rect", "circle", "line", "polyline", "polygon", "path", "text"):
                self.plots[-1] += 1
        elif tag == "svg" and "plot" in (a.get("class") or "").split():
            self.plots.append(0)
            self.depth = 1
            if self.in_figure:
                self.figure_has_plot = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.depth:
            self.depth -= 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
        if tag == "figure" and self.in_figure:
            self.figures_with_plot += self.figure_has_plot
            self.in_figure = False


def chromium_binary(given):
    for name in [given] if given else ["chromium", "chromium-browser", "google-chrome"]:
        path = shutil.which(name) if name else None
        if path:
            return path
    return None


def run_chromium(binary, args, timeout=90):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                              text=True, timeout=timeout)


def page_requests(netlog_path):
    """URLs the page itself asked for over the network (not file: or data:)."""
    try:
        with open(netlog_path) as f:
            log = json.load(f)
    except (OSError, ValueError):
        # Chromium may leave the log without its closing brackets when it exits fast.
        with open(netlog_path) as f:
            text = f.read()
        return sorted({m.group(2) for m in re.finditer(
            r'"network_isolation_key":"(file://[^"]*)"[^}]*"url":"([^"]+)"', text)
            if not m.group(2).startswith(("file:", "data:", "blob:"))})
    urls = set()
    for e in log.get("events", []):
        p = e.get("params", {})
        if "url" in p and str(p.get("network_isolation_key", "")).startswith("file://"):
            if not p["url"].startswith(("file:", "data:", "blob:")):
                urls.add(p["url"])
    return sorted(urls)


def check(binary, path, screenshots, height):
    failures = []
    with open(path, encoding="utf-8") as f:
        source = f.read()
    for m in re.finditer(r"https?://[^\s\"'<>)]*", source):
        failures.append(f"names a network resource: {m.group(0)[:80]}")
        break
    url = "file://" + os.path.abspath(path)
    with tempfile.TemporaryDirectory() as tmp:
        netlog = os.path.join(tmp, "net.json")
        r = run_chromium(binary, [f"--log-net-log={netlog}", "--net-log-capture-mode=Default", "--dump-dom", url])
        if r.returncode != 0 or "<html" not in r.stdout:
            return [f"chromium failed (exit {r.returncode}): {r.stderr[-400:]}"], None
        for line in r.stderr.splitlines():
            if ":CONSOLE" in line or "Uncaught" in line:
                failures.append("console: " + line.split("] ", 1)[-1][:200])
        for u in page_requests(netlog):
            failures.append(f"network request: {u[:120]}")
    counter = PlotCounter()
    counter.feed(r.stdout)
    if not counter.plots:
        failures.append("no plot in the page")
    empty = sum(1 for n in counter.plots if n == 0)
    if empty:
        failures.append(f"{empty} of {len(counter.plots)} plots have nothing drawn")
    if counter.figures_with_plot != counter.figures:
        failures.append(f"{counter.figures - counter.figures_with_plot} of {counter.figures} figures have no plot")
    if source.count('<svg class="plot"') != len(counter.plots):
        failures.append("the page's scripts changed the number of plots")
    shot = None
    if screenshots:
        os.makedirs(screenshots, exist_ok=True)
        shot = os.path.join(screenshots, os.path.splitext(os.path.basename(path))[0] + ".png")
        s = run_chromium(binary, [f"--screenshot={os.path.abspath(shot)}", f"--window-size=1280,{height}", url])
        if s.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 10000:
            failures.append(f"no screenshot written to {shot}")
    summary = f"{len(counter.plots)} plots, {counter.figures} figures"
    return failures, summary + (f", screenshot {shot}" if shot else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--screenshots", help="write one PNG per report into this folder")
    parser.add_argument("--height", type=int, default=2400, help="screenshot height in pixels")
    parser.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    args = parser.parse_args()
    binary = chromium_binary(args.chromium)
    if not binary:
        print("check_report_html: SKIPPED: no chromium on PATH (apt-get install chromium)")
        return SKIP
    probe = run_chromium(binary, ["--dump-dom", "data:text/html,<p>ok</p>"])
    if probe.returncode != 0 or "ok" not in probe.stdout:
        print(f"check_report_html: SKIPPED: {binary} does not start here: {probe.stderr[-300:]}")
        return SKIP
    failed = 0
    for path in args.reports:
        failures, summary = check(binary, path, args.screenshots, args.height)
        print(f"{'FAIL' if failures else 'ok  '} {path}: {summary or ''}")
        for f in failures:
            print(f"       {f}")
        failed += bool(failures)
    print(f"{len(args.reports) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
