"""The measuring half of the scoring benchmark (`bench_score.py`): where the
data and the cached run live (`ensure_run` generates the run once), the peer
programs each tool runs, and `measure`, which runs one tool in a fresh child
process and records its wall time, CPU time, peak memory (`run_child`, via
``os.wait4``) and the nDCG@10 it printed. Other benchmarks beside it reuse
`run_child`, `ensure_run` and `warm_page_cache` through `bench_score`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import util
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
