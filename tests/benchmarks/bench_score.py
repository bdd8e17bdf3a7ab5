#!/usr/bin/env python3
"""Scoring benchmark: judgepool's ``score`` command against its peers on a 7 M-line run.

Provides a command-line script (not a pytest test) that generates the MS MARCO
dev-small-scale synthetic run (6,980 queries x 1,000 hits) with the data folder's
``make_large_run.py``, caches it, and scores it with nDCG@10 against the dev-small
qrels using judgepool, ir_measures, ranx, pytrec_eval and, when one is on PATH, the
trec_eval binary. Every tool runs in its own fresh process in every round, so the
import cost and the peak memory are that process's own; rounds are interleaved so
machine noise falls on all tools alike. It prints a table of medians and ratios and,
with ``--json``, writes every measurement to a file.

    .venv/bin/python tests/benchmarks/bench_score.py [--rounds 5]
        [--tools judgepool,ir_measures,ranx,pytrec_eval,trec_eval]
        [--profile bm25|rerank] [--data DIR] [--workdir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata, util
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# The project's shared data folder sits beside the repository (../shared/data);
# --data points elsewhere.
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "msmarco-passage-dev-small"
DEFAULT_WORKDIR = HERE / ".cache"  # git-ignored: the generated run must never be committed
GENERATOR = "make_large_run.py"
QRELS = "qrels.msmarco-passage.dev-subset.txt"
QUERIES = "queries.dev-small.tsv"

TOOLS = ("judgepool", "ir_measures", "ranx", "pytrec_eval", "trec_eval")
# The baseline for the "x fastest peer" column: the Python-facing peers a user
# would otherwise reach for. judgepool is the subject and trec_eval is plain C.
PEERS = ("ir_measures", "ranx", "pytrec_eval")
# The goal compares judgepool with the faster of these two.
GOAL_PEERS = ("ir_measures", "ranx")
GOAL_RATIO = 0.2
GOAL_PEAK_MB = 1000.0  # 1 GB = 10^9 bytes
AGREE_TOL = 5e-5  # "agree to 4 decimals"

# Each peer program reads both files itself (a user pays for reading) and prints
# one JSON line: the mean it reports and how many queries that mean is over.
IR_MEASURES_PROG = """
import json, sys
import ir_measures
from ir_measures import nDCG
run_path, qrels_path = sys.argv[1], sys.argv[2]
qrels = list(ir_measures.read_trec_qrels(qrels_path))
run = ir_measures.read_trec_run(run_path)
value = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
# iter_calc fills every qrels query the run lacks with 0, and the pytrec_eval
# provider drops run queries without judgments: the mean is over qrels queries.
print(json.dumps({"ndcg": float(value), "n": len({q.query_id for q in qrels}),
                  "over": "qrels queries (absent -> 0)"}))
"""

RANX_PROG = """
import json, sys
from ranx import Qrels, Run, evaluate
run_path, qrels_path = sys.argv[1], sys.argv[2]
qrels = Qrels.from_file(qrels_path, kind="trec")
run = Run.from_file(run_path, kind="trec")
# ranx refuses differing query sets unless asked to align them on the qrels;
# only ask when needed so the common case measures the plain call.
same = set(qrels.keys()) == set(run.keys())
value = evaluate(qrels, run, "ndcg@10", make_comparable=not same)
print(json.dumps({"ndcg": float(value), "n": len(qrels.keys()),
                  "over": "qrels queries" + ("" if same else " (make_comparable, absent -> 0)")}))
"""

PYTREC_EVAL_PROG = """
import json, sys
import pytrec_eval
run_path, qrels_path = sys.argv[1], sys.argv[2]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
values = [m["ndcg_cut_10"] for m in per_query.values()]
print(json.dumps({"ndcg": sum(values) / len(values), "n": len(values),
                  "over": "run queries that have judgments (absent -> left out)"}))
"""


@dataclass
class Measurement:
    """One tool in one round: its cost and the number it reported."""

    tool: str
    round: int
    ok: bool
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    ndcg: float | None = None
    n: int | None = None
    over: str | None = None
    error: str | None = None
    others_cpu_s: float | None = None
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class ChildResult:
    returncode: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    stdout: str
    stderr: str
    others_cpu_s: float | None


def system_busy_s() -> float | None:
    """CPU seconds the whole machine has spent busy since boot (None off Linux)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal: all but idle and iowait
    ticks = [int(x) for x in fields[1:9]]
    busy = sum(ticks) - ticks[3] - ticks[4]
    return busy / os.sysconf("SC_CLK_TCK")


def run_child(argv: list[str], env: dict[str, str] | None = None) -> ChildResult:
    """Run one command and measure its wall time, CPU time and peak RSS.

    os.wait4 returns the resource usage of exactly this child (and any
    descendants it reaped), unlike getrusage(RUSAGE_CHILDREN), which sums all
    children ever waited for, and unlike a /usr/bin/time wrapper it adds no
    extra process to the timing. Output goes to files, not pipes, so a chatty
    child can never block on a full pipe while we sit in wait4.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        busy_before = system_busy_s()
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # e.g. Ctrl-C: do not leave a 7 M-line scorer running
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - start
        busy_after = system_busy_s()
        # Tell Popen the child is already reaped so it never waits for it again.
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    # Machine-wide busy time minus the child's own: what other work took from
    # the two cores meanwhile (our own parent sleeps in wait4). Tick-granular.
    others = None
    if busy_before is not None and busy_after is not None:
        others = max(0.0, busy_after - busy_before - cpu)
    return ChildResult(
        returncode=proc.returncode,
        wall_s=wall,
        cpu_s=cpu,
        peak_rss_mb=usage.ru_maxrss * 1024 / 1e6,  # Linux reports KiB
        stdout=stdout,
        stderr=stderr,
        others_cpu_s=others,
    )


def judgepool_argv(run: Path, qrels: Path) -> list[str]:
    script = Path(sys.executable).parent / "judgepool"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "judgepool"]
    return [
        *base,
        "score",
        str(run),
        "--qrels",
        str(qrels),
        "--preset",
        "trec_eval",
        "-k",
        "10",
        "--format",
        "json",
    ]


def parse_judgepool(stdout: str) -> tuple[float, int | None, str]:
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        summary = obj.get("summary")
        if isinstance(summary, dict) and "ndcg" in summary:
            # "scored" is the population of the mean; "queries" also counts unknown ones.
            n = summary.get("scored")
            return float(summary["ndcg"]), n if isinstance(n, int) else None, describe_jp(summary)
    raise ValueError("no JSON line with summary.ndcg in judgepool's output")


def describe_jp(summary: dict[str, Any]) -> str:
    counts = ", ".join(
        f"{key} {summary[key]}"
        for key in ("missing", "excluded", "unknown")
        if isinstance(summary.get(key), int)
    )
    return f"judged queries, missing=zero as trec_eval -c ({counts})"


def parse_peer(stdout: str) -> tuple[float, int | None, str]:
    obj = json.loads(stdout.strip().splitlines()[-1])
    return float(obj["ndcg"]), int(obj["n"]), str(obj["over"])


def parse_trec_eval(stdout: str) -> tuple[float, int | None, str]:
    values: dict[str, str] = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            values[parts[0]] = parts[2]
    n = int(values["num_q"]) if "num_q" in values else None
    return float(values["ndcg_cut_10"]), n, "qrels queries (-c: absent -> 0)"


def measure(tool: str, rnd: int, run: Path, qrels: Path, numba_cold: bool) -> Measurement:
    env = dict(os.environ)
    note: dict[str, str] = {}
    cold_dir: str | None = None
    if tool == "judgepool":
        argv, parse = judgepool_argv(run, qrels), parse_judgepool
    elif tool == "trec_eval":
        binary = shutil.which("trec_eval")
        assert binary is not None
        # num_q is printed only so the table can say what the mean is over.
        argv = [binary, "-c", "-m", "ndcg_cut.10", "-m", "num_q", str(qrels), str(run)]
        parse = parse_trec_eval
    else:
        prog = {
            "ir_measures": IR_MEASURES_PROG,
            "ranx": RANX_PROG,
            "pytrec_eval": PYTREC_EVAL_PROG,
        }[tool]
        argv, parse = [sys.executable, "-c", prog, str(run), str(qrels)], parse_peer
        if tool == "ranx" and numba_cold:
            # An empty numba cache forces the JIT compile a first-time user pays.
            cold_dir = tempfile.mkdtemp(prefix="bench-numba-")
            env["NUMBA_CACHE_DIR"] = cold_dir
            note["numba"] = "empty cache: compiled"
    before = numba_cache_files() if tool == "ranx" and cold_dir is None else None
    try:
        res = run_child(argv, env)
    finally:
        if cold_dir is not None:
            shutil.rmtree(cold_dir, ignore_errors=True)
    if before is not None:
        after = numba_cache_files()
        written = sum(1 for f, t in after.items() if before.get(f) != t)
        note["numba"] = f"compiled, wrote {written} cache files" if written else "cache reused"
    m = Measurement(
        tool=tool,
        round=rnd,
        ok=False,
        wall_s=res.wall_s,
        cpu_s=res.cpu_s,
        peak_rss_mb=res.peak_rss_mb,
        others_cpu_s=res.others_cpu_s,
        notes=note,
    )
    if res.returncode != 0:
        m.error = f"exit {res.returncode}: {res.stderr.strip()[-2000:]}"
        return m
    try:
        m.ndcg, m.n, m.over = parse(res.stdout)
    except (ValueError, KeyError, IndexError) as exc:
        m.error = f"could not read its output ({exc}): {res.stdout.strip()[-500:]!r}"
        return m
    m.ok = True
    return m


def file_digest(*paths: Path, extra: str = "") -> str:
    h = hashlib.sha256(extra.encode())
    for p in paths:
        h.update(p.read_bytes())
    return h.hexdigest()


def ensure_run(data: Path, workdir: Path, profile: str) -> Path:
    """Return the cached generated run, generating it first if it is not there.

    The cache key covers the generator, both input files and the profile, so
    a changed generator or data folder can never reuse a stale run.
    """
    gen, qrels, queries = data / GENERATOR, data / QRELS, data / QUERIES
    for p in (gen, qrels, queries):
        if not p.is_file():
            sys.exit(f"bench_score: {p} not found (use --data DIR)")
    key = file_digest(gen, qrels, queries, extra=profile)[:12]
    workdir.mkdir(parents=True, exist_ok=True)
    target = workdir / f"dev-small-{profile}-{key}.run"
    if target.is_file() and target.stat().st_size > 0:
        print(f"run: {target} (cached, {target.stat().st_size / 1e6:.0f} MB)")
        return target
    partial = target.with_suffix(".partial")
    print(f"run: generating {target.name} with {GENERATOR} --profile {profile} ...", flush=True)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(gen), str(qrels), str(queries), str(partial), "--profile", profile],
        check=True,
    )
    os.replace(partial, target)  # never leave a half-written file under the final name
    print(
        f"run: generated in {time.perf_counter() - start:.1f} s, "
        f"{target.stat().st_size / 1e6:.0f} MB"
    )
    return target


def warm_page_cache(path: Path) -> None:
    # Read once untimed so the first tool of round 1 does not pay for the disk.
    with path.open("rb") as f:
        while f.read(1 << 24):
            pass


def numba_cache_files() -> dict[str, int]:
    """The ranx numba cache files now on disk, with their modification times.

    Comparing two snapshots tells whether a ranx process compiled anything: an
    index file (.nbi) existing is not enough, since numba compiles and stores
    one specialisation per argument type signature.
    """
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        roots = [Path(custom)]
    else:
        spec = util.find_spec("ranx")
        locations = spec.submodule_search_locations if spec is not None else None
        roots = [Path(p) for p in locations or []]
    return {
        str(f): f.stat().st_mtime_ns
        for r in roots
        for pattern in ("*.nbi", "*.nbc")
        for f in r.rglob(pattern)
    }


def version_of(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def summarise(results: list[Measurement], tools: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for tool in tools:
        ok = [m for m in results if m.tool == tool and m.ok]
        failed = [m for m in results if m.tool == tool and not m.ok]
        if not ok:
            out[tool] = {
                "ok_rounds": 0,
                "failed_rounds": len(failed),
                "error": failed[0].error if failed else None,
            }
            continue
        walls = [m.wall_s for m in ok]
        ndcgs = {round(m.ndcg, 9) for m in ok if m.ndcg is not None}
        out[tool] = {
            "ok_rounds": len(ok),
            "failed_rounds": len(failed),
            "median_wall_s": statistics.median(walls),
            "min_wall_s": min(walls),
            "max_wall_s": max(walls),
            "median_cpu_s": statistics.median(m.cpu_s for m in ok),
            "median_peak_rss_mb": statistics.median(m.peak_rss_mb for m in ok),
            "max_peak_rss_mb": max(m.peak_rss_mb for m in ok),
            "ndcg": ok[0].ndcg,
            "ndcg_stable_across_rounds": len(ndcgs) == 1,
            "n": ok[0].n,
            "over": ok[0].over,
        }
    peer_medians = [out[t]["median_wall_s"] for t in PEERS if out.get(t, {}).get("ok_rounds")]
    fastest = min(peer_medians) if peer_medians else None
    for s in out.values():
        if fastest and s.get("ok_rounds"):
            s["x_fastest_peer"] = s["median_wall_s"] / fastest
    return out


def print_table(summary: dict[str, dict[str, Any]]) -> None:
    head = (
        f"{'tool':<12} {'ok':>4} {'median s':>9} {'min s':>7} {'max s':>7} {'cpu s':>7} "
        f"{'peak MB':>8} {'nDCG@10':>9} {'x peer':>7}  averaged over"
    )
    print(head)
    print("-" * len(head))
    for tool, s in summary.items():
        if not s.get("ok_rounds"):
            print(f"{tool:<12} {0:>4}  failed: {str(s.get('error'))[:200]}")
            continue
        n = "?" if s["n"] is None else str(s["n"])
        print(
            f"{tool:<12} {s['ok_rounds']:>4} {s['median_wall_s']:>9.2f} {s['min_wall_s']:>7.2f} "
            f"{s['max_wall_s']:>7.2f} {s['median_cpu_s']:>7.2f} "
            f"{s['median_peak_rss_mb']:>8.0f} {fmt(s['ndcg'], '.6f'):>9} "
            f"{fmt(s.get('x_fastest_peer'), '.2f'):>7}  {n} {s['over']}"
        )


def verdict_lines(summary: dict[str, dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    vals = {t: s["ndcg"] for t, s in summary.items() if s.get("ok_rounds")}
    if len(vals) > 1:
        spread = max(vals.values()) - min(vals.values())
        agree = "agree" if spread <= AGREE_TOL else "DISAGREE"
        lines.append(
            f"nDCG@10: max spread between tools {spread:.2e}: "
            f"{agree} to 4 decimals (tolerance {AGREE_TOL:g})"
        )
    for tool, s in summary.items():
        if s.get("ok_rounds") and not s["ndcg_stable_across_rounds"]:
            lines.append(f"warning: {tool} reported different nDCG@10 in different rounds")
    jp = summary.get("judgepool", {})
    goal = [summary[t] for t in GOAL_PEERS if summary.get(t, {}).get("ok_rounds")]
    if not jp.get("ok_rounds"):
        lines.append("goal: judgepool did not run, no verdict")
    elif not goal:
        lines.append("goal: neither ir_measures nor ranx ran, no verdict")
    else:
        best = min(goal, key=lambda s: s["median_wall_s"])
        best_name = next(t for t in GOAL_PEERS if summary.get(t) is best)
        ratio = jp["median_wall_s"] / best["median_wall_s"]
        peak = jp["max_peak_rss_mb"]
        met = ratio <= GOAL_RATIO and peak < GOAL_PEAK_MB
        # CPU time is far less disturbed by other work than wall time: shown
        # beside the verdict as a cross-check, never instead of it.
        cpu_ratio = jp["median_cpu_s"] / best["median_cpu_s"]
        jp["goal_ratio"] = ratio
        jp["goal_cpu_ratio"] = cpu_ratio
        jp["goal_met"] = met
        lines.append(
            f"goal: judgepool median {jp['median_wall_s']:.2f} s = {ratio:.3f}x {best_name} "
            f"({best['median_wall_s']:.2f} s), peak {peak:.0f} MB (max over rounds); "
            f"goal <= {GOAL_RATIO}x and peak < 1 GB: {'MET' if met else 'NOT MET'} "
            f"(CPU time ratio {cpu_ratio:.3f}x)"
        )
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help=f"folder with {GENERATOR}, {QRELS}, {QUERIES} (default: %(default)s)",
    )
    ap.add_argument(
        "--workdir",
        type=Path,
        default=DEFAULT_WORKDIR,
        help="where the generated run is cached (default: %(default)s, git-ignored)",
    )
    ap.add_argument(
        "--profile",
        choices=("bm25", "rerank"),
        default="bm25",
        help="generator profile (default: %(default)s)",
    )
    ap.add_argument("--rounds", type=int, default=5, help="rounds per tool (default: %(default)s)")
    ap.add_argument(
        "--tools", default=",".join(TOOLS), help="comma-separated subset of: " + ",".join(TOOLS)
    )
    ap.add_argument(
        "--numba-cold",
        action="store_true",
        help="give ranx an empty numba cache every round, so every round pays "
        "the JIT compile a first-time user pays",
    )
    ap.add_argument("--json", type=Path, default=None, help="write all measurements here")
    args = ap.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        ap.error(f"--tools: unknown {unknown}; choose from {','.join(TOOLS)}")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    args.tool_list = [t for t in TOOLS if t in tools]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tools: list[str] = args.tool_list
    if "trec_eval" in tools and shutil.which("trec_eval") is None:
        print("trec_eval: not found on PATH, skipped")
        tools.remove("trec_eval")
    if not tools:
        return 1
    qrels = args.data / QRELS
    run = ensure_run(args.data, args.workdir, args.profile)
    warm_page_cache(run)

    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.platform()}"
    )
    if "ranx" in tools:
        state = (
            "emptied before every round (--numba-cold)"
            if args.numba_cold
            else "the normal on-disk cache; each ranx line says whether that round compiled"
        )
        print(
            "note: ranx compiles its measures with numba's JIT on first use, a cost a user "
            "pays in a fresh process; numba keeps the compiled code on disk, so later "
            f"processes mostly load it. Cache: {state}."
        )
    print(
        f"rounds: {args.rounds}, interleaved, order rotated each round; "
        "each tool is a fresh process (imports and file reading are included)\n"
    )

    results: list[Measurement] = []
    for rnd in range(1, args.rounds + 1):
        shift = (rnd - 1) % len(tools)
        for tool in tools[shift:] + tools[:shift]:
            m = measure(tool, rnd, run, qrels, args.numba_cold)
            results.append(m)
            status = (
                f"nDCG@10 {m.ndcg:.6f}"
                if m.ok and m.ndcg is not None
                else f"FAILED {str(m.error)[:300]}"
            )
            extra = "".join(f"  [{v}]" for v in m.notes.values())
            if m.others_cpu_s is not None:
                extra += f"  [others: {m.others_cpu_s / m.wall_s:.2f} cores]"
            print(
                f"  round {rnd} {tool:<12} {m.wall_s:7.2f} s {m.peak_rss_mb:7.0f} MB  "
                f"{status}{extra}",
                flush=True,
            )
    print()
    summary = summarise(results, tools)
    print_table(summary)
    print(
        "x peer: median wall time / median of the fastest of "
        + ", ".join(PEERS)
        + "; peak MB = peak resident memory of the process (10^6 bytes)"
    )
    compiled = [
        m
        for m in results
        if m.tool == "ranx" and m.notes.get("numba", "").startswith(("compiled", "empty"))
    ]
    if compiled:
        rounds = ", ".join(f"round {m.round} {m.wall_s:.2f} s" for m in compiled)
        print(f"ranx paid the numba JIT compile in: {rounds} (included in its median)")
    others = [m.others_cpu_s / m.wall_s for m in results if m.others_cpu_s is not None]
    if others:
        busy = statistics.mean(others)
        print(
            f"other processes used {busy:.2f} cores on average while the tools ran"
            + (" (noisy: trust medians and ratios, not single times)" if busy > 0.25 else "")
        )
    for line in verdict_lines(summary):
        print(line)

    if args.json is not None:
        doc = {
            "benchmark": "score nDCG@10, MS MARCO dev-small synthetic 1000-deep run",
            "run": str(run),
            "run_bytes": run.stat().st_size,
            "qrels": str(qrels),
            "profile": args.profile,
            "rounds": args.rounds,
            "numba_cold": args.numba_cold,
            "machine": {
                "cores": os.cpu_count(),
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
            "versions": {
                d: version_of(d)
                for d in ("judgepool", "ir_measures", "ranx", "pytrec_eval-terrier", "numba")
            },
            "summary": summary,
            "measurements": [asdict(m) for m in results],
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0 if all(m.ok for m in results) else 1


if __name__ == "__main__":
    sys.exit(main())
