#!/usr/bin/env python3
"""Loads an occtune HTML report in headless Chromium and checks what a reader would see.

usage: report_check.py CHROMIUM REPORT.html EXPECT.json [--screenshot OUT.png]

Chromium renders the page (--dump-dom gives the DOM after parsing and layout) with console
logging on stderr; the check fails on any console message of level warning or error and on any
failed resource load. EXPECT.json says how many scatter and history charts there are and, per
shape, how many points each family has. Exit 0 when everything matches, 1 otherwise.
"""
import html.parser
import json
import re
import subprocess
import sys
import tempfile


def chromium(binary, args, url, timeout=120):
    with tempfile.TemporaryDirectory() as profile:
        cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--disable-background-networking",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0"] + args + [url]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return run


CONSOLE = re.compile(r"CONSOLE\(\d+\)\]? ?\"?(.*)")
LEVEL = re.compile(r":(INFO|WARNING|ERROR|FATAL|VERBOSE\d*):")


def console_problems(stderr):
    """Console messages and failed loads, from Chromium's stderr log."""
    problems = []
    for line in stderr.splitlines():
        if "CONSOLE" in line:
            problems.append(line.strip())
        elif "Failed to load resource" in line or "net::ERR_" in line:
            problems.append(line.strip())
    return problems


class Dom(html.parser.HTMLParser):
    """Collects the charts and the points inside them."""

    def __init__(self):
        super().__init__()
        self.stack = []
        self.charts = []  # dicts: kind, shape, points [(family, outcome)], marks set()
        self.section_shape = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "section" and "shape" in classes:
            self.section_shape = a.get("data-shape")
        if tag == "svg" and "chart" in classes:
            kind = "scatter" if "scatter" in classes else "history"
            self.charts.append({"kind": kind, "shape": self.section_shape, "points": [],
                                "marks": set()})
        if not self.charts:
            return
        chart = self.charts[-1]
        if "pt" in classes or "hist-pt" in classes:
            chart["points"].append((a.get("data-family"), a.get("data-outcome"),
                                    a.get("data-verdict")))
        for mark in ("winner-mark", "textbook-mark", "cublas-line"):
            if mark in classes:
                chart["marks"].add(mark)


def check(binary, report, expect, screenshot=None):
    failures = []
    url = "file://" + report
    run = chromium(binary, ["--dump-dom", "--virtual-time-budget=2000"], url)
    if run.returncode != 0:
        return [f"chromium exited {run.returncode}: {run.stderr[-2000:]}"]
    failures += [f"console: {p}" for p in console_problems(run.stderr)]
    dom = Dom()
    dom.feed(run.stdout)
    scatters = [c for c in dom.charts if c["kind"] == "scatter"]
    histories = [c for c in dom.charts if c["kind"] == "history"]
    if len(scatters) != expect["scatter_charts"]:
        failures.append(f"{len(scatters)} scatter charts, expected {expect['scatter_charts']}")
    if len(histories) != expect["history_charts"]:
        failures.append(f"{len(histories)} history charts, expected {expect['history_charts']}")
    for chart in scatters:
        want = expect["points"].get(chart["shape"])
        got = {}
        for family, _, _ in chart["points"]:
            got[family] = got.get(family, 0) + 1
        if want is not None and got != want:
            failures.append(f"{chart['shape']}: points per family {got}, expected {want}")
        for mark in ("winner-mark", "textbook-mark", "cublas-line"):
            if mark not in chart["marks"]:
                failures.append(f"{chart['shape']}: no {mark}")
    outcomes = {o for c in scatters for _, o, _ in c["points"]}
    for outcome in expect.get("outcomes", []):
        if outcome not in outcomes:
            failures.append(f"no point with outcome {outcome} in any scatter chart")
    verdicts = {v for c in histories for _, _, v in c["points"] if v}
    for verdict in expect.get("verdicts", []):
        if verdict not in verdicts:
            failures.append(f"no check point with verdict {verdict} in any history chart")
    if screenshot:
        shot = chromium(binary, [f"--screenshot={screenshot}", "--window-size=1280,2400",
                                 "--hide-scrollbars"], url)
        if shot.returncode != 0:
            failures.append(f"screenshot failed: {shot.stderr[-1000:]}")
    return failures


def main():
    args = sys.argv[1:]
    screenshot = None
    if "--screenshot" in args:
        i = args.index("--screenshot")
        screenshot = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, report, expect_path = args
    with open(expect_path) as f:
        expect = json.load(f)
    failures = check(binary, report, expect, screenshot)
    for failure in failures:
        print("report_check:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
