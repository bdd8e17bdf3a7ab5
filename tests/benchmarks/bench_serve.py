#!/usr/bin/env python3
"""Serve benchmark: `judgepool serve` on a 100 k-judgment workspace to N
concurrent browser sessions (headless Chromium, one browser context each).

Provides a command-line script (not a pytest test). The workspace is
`bench_app`'s (1,000 queries, 10 runs, 100 k judgments; built once, cached
under ``.cache/``); each run grades a fresh copy. N annotators get tokens;
N pages open at once, sign in, then grade round after round: in each round
every session presses a grade key, then the script waits until every one
shows its next document (``--pace 0``, the worst case: every key at the same
instant), or each session at its own pace (``--pace S``: a random 0.5–1.5 × S
seconds between a session's grades, as people reading do). It reports:

- memory per session: RSS (and PSS, which shares libraries out fairly) of
  each session's app process, read from /proc once all are grading;
- start: page open → sign-in screen drawn (the session's process started
  and imported), and Enter on the sign-in → first document (the plan read);
- keystroke → next document, as seen in the browser: from the keydown
  event in the page to the first websocket frame the page receives that
  shows another document's ID (both timed in the page, `performance.now`);
  p50 and p95 over every grade of every session (goal p95 ≤ 150 ms);
- CPU per grade: the user and system time the session processes (and,
  apart, the browser) spent while grading, divided by the grades: what a
  server's cores must give per grade, and what the browsers took from the
  same cores here (in real use they run on the users' machines);
- lost grades: the ledger read afresh after the server stopped must hold
  every grade pressed, under the right name, in order.

    .venv/bin/python tests/benchmarks/bench_serve.py [--sessions 10] [--grades 30] [--pace S]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from bench_app import CACHE, build_workspace, percentile  # noqa: E402

from tests.serve.browser_support import (  # noqa: E402
    BrowserSession,
    add_annotator,
    chromium_path,
    serving,
)

# Timestamps taken in the page: every keydown, and every websocket frame
# with its text (escape sequences left in; the document IDs are plain).
RECORDER = """
window.__jp = {keys: [], frames: []};
document.addEventListener("keydown", () => window.__jp.keys.push(performance.now()), true);
const Native = window.WebSocket;
const decoder = new TextDecoder();
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      const t = performance.now();
      const data = event.data;
      if (typeof data === "string") { window.__jp.frames.push([t, data]); }
      else if (data instanceof ArrayBuffer) { window.__jp.frames.push([t, decoder.decode(data)]); }
      else { data.text().then((text) => window.__jp.frames.push([t, text])); }
    });
  }
};
"""
DOC_ID = re.compile(r"\bd\d+-\d+\b")


def session_processes(workspace: Path) -> list[int]:
    """The app processes of the sessions served on ``workspace``."""
    found = []
    for status in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command = status.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--signed-in-session" in command and str(workspace).encode() in command:
            found.append(int(status.parent.name))
    return found


def memory_mib(pid: int) -> tuple[float, float]:
    """RSS and PSS of ``pid`` in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("Rss", "Pss"):
            values[key] = int(rest.split()[0]) / 1024
    return values["Rss"], values["Pss"]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_groups() -> dict[str, list[int]]:
    """This script's descendant processes: the browser's and the served sessions'."""
    parents: dict[int, int] = {}
    commands: dict[int, bytes] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            commands[int(stat.parent.name)] = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    groups: dict[str, list[int]] = {"browser": [], "sessions": []}
    for pid, command in commands.items():
        ancestor = parents.get(pid, 0)
        while ancestor not in (0, 1, os.getpid()):
            ancestor = parents.get(ancestor, 0)
        if ancestor != os.getpid():
            continue
        if b"--signed-in-session" in command:
            groups["sessions"].append(pid)
        elif b"chrom" in command:
            groups["browser"].append(pid)
    return groups


def group_cpu(groups: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds so far of each group (processes gone since count nothing)."""
    out = {}
    for name, pids in groups.items():
        total = 0.0
        for pid in pids:
            with contextlib.suppress(OSError):
                total += cpu_seconds(pid)
        out[name] = total
    return out


def grade_all(sessions: list[BrowserSession], grades: int, pace: float) -> None:
    """Every session grades ``grades`` documents, each key once the previous
    grade's next document has arrived. ``pace`` 0: in lockstep (every session
    presses at the same instant, then all wait: the worst case); otherwise each
    session waits a random 0.5–1.5 × ``pace`` seconds before its next key, as
    people reading a document do."""
    rng = random.Random(11)
    done = [0] * len(sessions)
    waiting: list[int | None] = [None] * len(sessions)  # the mark a grade waits after
    due = [time.monotonic() + rng.uniform(0, pace) for _ in sessions]
    while min(done) < grades or any(mark is not None for mark in waiting):
        now = time.monotonic()
        for i, session in enumerate(sessions):
            mark = waiting[i]
            if mark is not None:
                if session.received.find(f"{done[i]} judged this session".encode(), mark) < 0:
                    continue
                waiting[i] = None
                due[i] = now + rng.uniform(0.5, 1.5) * pace
        if pace == 0 and any(mark is not None for mark in waiting):
            sessions[0].page.wait_for_timeout(5)
            continue
        for i, session in enumerate(sessions):
            if waiting[i] is None and done[i] < grades and due[i] <= now:
                waiting[i] = session.mark()
                done[i] += 1
                session.press(str((done[i] + i) % 4))
        sessions[0].page.wait_for_timeout(5)


def latencies(record: dict[str, Any], first_key: int) -> list[float]:
    """For each keydown from ``first_key`` on: ms until a frame shows another document."""
    frames = record["frames"]
    shown = None
    out = []
    keys = record["keys"][first_key:]
    # the document on screen before the first grade key
    for t, text in frames:
        if t > keys[0]:
            break
        ids = DOC_ID.findall(text)
        if ids:
            shown = ids[-1]
    for key_time in keys:
        for t, text in frames:
            if t <= key_time:
                continue
            ids = [found for found in DOC_ID.findall(text) if found != shown]
            if ids:
                shown = ids[-1]
                out.append(t - key_time)
                break
    return out


def first_frame_with(record: dict[str, Any], text: str, after: float = 0.0) -> float:
    return next(t for t, data in record["frames"] if t > after and text in data)


def run(sessions: int, grades: int, pace: float, workdir: Path) -> None:
    from playwright.sync_api import sync_playwright

    cached = build_workspace(workdir / "app-bench-100k.sqlite")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "served.sqlite"
        shutil.copyfile(cached, workspace)
        names = [f"s{i}" for i in range(sessions)]
        tokens = {name: add_annotator(workspace, name) for name in names}
        with serving(workspace) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path())
            pages: dict[str, BrowserSession] = {}
            for name in names:
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.add_init_script(RECORDER)
                pages[name] = BrowserSession(context.new_page(), url)
            for name, page in pages.items():
                page.wait_for("Token", timeout=120)
                page.focus()
                page.type(name)
                page.press("Tab")
                page.type(tokens[name])
            for page in pages.values():
                page.press("Enter")
            for page in pages.values():
                page.wait_for("0 judged this session", timeout=300)
            processes = session_processes(workspace)
            rss = [memory_mib(pid) for pid in processes]
            groups = process_groups()
            cpu_before = group_cpu(groups)
            grade_all(list(pages.values()), grades, pace)
            cpu_after = group_cpu(groups)
            cpu = {name: cpu_after[name] - cpu_before[name] for name in groups}
            records = {name: page.page.evaluate("window.__jp") for name, page in pages.items()}
            browser.close()
        conn = sqlite3.connect(workspace)
        events = conn.execute(
            "SELECT annotator, grade FROM judgment_events WHERE annotator LIKE 's%' ORDER BY id"
        ).fetchall()
        conn.close()

    starts, sign_ins, keys = [], [], []
    # keydowns per page: the name, Tab, the token, Enter, then the grades
    for name, record in records.items():
        enter_index = len(name) + 1 + len(tokens[name])
        starts.append(first_frame_with(record, "Token"))
        enter = record["keys"][enter_index]
        sign_ins.append(first_frame_with(record, "judged this session", enter) - enter)
        keys.extend(latencies(record, enter_index + 1))
    lost = wrong = 0
    for i, name in enumerate(names):
        theirs = [grade for who, grade in events if who == name]
        expected = [(count + i) % 4 for count in range(1, grades + 1)]
        lost += max(0, len(expected) - len(theirs))
        wrong += sum(a != b for a, b in zip(theirs, expected, strict=False))
    mode = "in lockstep" if pace == 0 else f"each a grade every 0.5–1.5 × {pace:g} s"
    print(f"{sessions} sessions × {grades} grades on {cached.name}, {mode}")
    print(
        "memory per session process: RSS median "
        f"{statistics.median(r for r, _ in rss):.0f} MiB (max {max(r for r, _ in rss):.0f}), "
        f"PSS median {statistics.median(p for _, p in rss):.0f} MiB; {len(rss)} processes"
    )
    print(
        f"page open → sign-in screen: median {statistics.median(starts):.0f} ms, "
        f"max {max(starts):.0f} ms"
    )
    print(
        f"sign-in Enter → first document: median {statistics.median(sign_ins):.0f} ms, "
        f"max {max(sign_ins):.0f} ms"
    )
    print(
        f"keystroke → next document in the browser ({len(keys)} grades): "
        f"p50 {percentile(keys, 50):.0f} ms, p95 {percentile(keys, 95):.0f} ms, "
        f"max {max(keys):.0f} ms (goal p95 ≤ 150 ms)"
    )
    per_grade = {name: seconds / (sessions * grades) * 1000 for name, seconds in cpu.items()}
    print(
        f"CPU per grade: {per_grade['sessions']:.0f} ms in the session's process, "
        f"{per_grade['browser']:.0f} ms in the browser (same machine here; "
        "a user's own in real use)"
    )
    print(f"grades in the ledger: {len(events)} of {sessions * grades}; lost {lost}, wrong {wrong}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--grades", type=int, default=30)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds between a session's grades (randomised ±50%%); 0: all in lockstep",
    )
    parser.add_argument("--workdir", type=Path, default=CACHE)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    run(args.sessions, args.grades, args.pace, args.workdir)
    print(f"(benchmark took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
