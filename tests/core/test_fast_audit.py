"""The columnar audit gives the reference audit's report, item for item.

Each case writes a run file (seeded random, 1,600 of them), then compares
``audit_columns(read_run_columns_collecting(path))`` with
``audit_run(read_run(path, collect_errors=True))``: the whole `AuditReport`
(every finding list in order, counts, examples, coverage, line count) must be
equal. The files cover the fast engine's ID domain (`test_fast_vs_reference`:
IDs of 1 to 300 bytes across every 8-byte word boundary, multi-byte UTF-8,
MS MARCO v2, URL and chunk shapes) and everything an audit reports: duplicates
(of entities too), ties (heavy, and under every tie policy), rank columns that
disagree with the scores, short lists, unknown, missing and zero-IDCG queries,
runs that split queries, and bad lines of every kind among comments and blank
lines, with LF or CR LF line ends, a byte order mark, a missing final newline,
gzip. Some cases shrink the reader's blocks and the hasher's chunks so that
their splitting paths run on small files.

A run read in chunks of whole queries is audited chunk by chunk and merged
(`finish_audit`): the same report again. And the real runs of the shared data
are audited both ways.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import judgepool.core.fast.keys as fast_keys
import judgepool.formats.fast_run.blocks as run_blocks
from judgepool.core.auditing.audit import AuditReport, audit_run
from judgepool.core.auditing.query_audit import audit_queries
from judgepool.core.fast.audit import audit_columns, audit_part, finish_audit
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.types import RunEntry
from judgepool.formats.fast_run.collecting import read_run_columns_collecting
from judgepool.formats.fast_run.reader import RunColumns
from judgepool.formats.trec import RunFile, read_qrels, read_run
from tests.core.fast_run_domain import ENTITY, QUERY_IDS, SCALES, doc_pool, id_of_size

DATA = Path(__file__).resolve().parents[1] / "data"
SHARED = Path("/work/shared/data")
Judged = dict[str, dict[str, int]]

BATCHES = 16
# 1,600 files in all (2,400 until the suite had to fit in 10 minutes)
PER_BATCH = 100

# the last ones are one 32-bit float with 1.0, or with each other: ties under
# score_precision=single only
TIE_SCORES = [0.0, -0.0, 1.0, 2.0, 0.5, 3.25, -1.0, 1e-300]
TIE_SCORES += [1.0 + 2**-30, 1.0 + 2**-24, 1e39, 3.5e38]
BAD_LINES = [
    "q1 Q0 d1 1",  # too few columns
    "q1 Q0 d1 x1 1.0 t",  # rank not an integer
    "q1 Q0 d1 0x10 1.0 t",  # hexadecimal rank
    "q1 Q0 d1 1 nan t",  # score not finite
    "q1 Q0 d1 1 inf t",
    "q1 Q0 d1 1 1e999 t",
    "q1 Q0 d1 1 abc t",
    "q1 Q0 d1 99999999999999999999 1.0 t",  # rank beyond int64
    "q1 Q0 d\x01x 1 1.0 t",  # a control character in an ID
]


def write_case(path: Path, rng: random.Random) -> tuple[Path, Judged, Contract]:
    """A random run file and judgments (see the module docstring)."""
    scale = rng.choice(SCALES)
    entity = rng.randrange(4) == 0
    contract = Contract(
        k=rng.randint(1, 12),
        scale=scale,
        gain=rng.choice(["linear", "exponential"]),
        ties=rng.choice(["trec_eval", "docid", "rank", "input"]),
        score_precision=rng.choice(["double", "single"]),
        entity=ENTITY if entity else None,
    )
    docs = doc_pool(rng, rng.randint(1, 12))
    if entity or rng.randrange(5) == 0:
        docs = [f"{d}#{c}" for d in docs for c in range(rng.randint(1, 3))]
    pool = [*QUERY_IDS, id_of_size(rng, rng.choice([7, 8, 9, 64, 65])).replace("#", "~")]
    queries = rng.sample(pool, rng.randint(1, 4))
    judgments: Judged = {}
    for query_id in [*queries, "judged-but-absent"]:
        kind = rng.randrange(6)
        if kind == 0:
            continue  # unknown to the judgments
        chosen = rng.sample(docs, rng.randint(0, len(docs)))
        keys = {d.split("#")[0] if rng.random() < 0.5 else d for d in chosen}
        if kind == 1:
            keys = set()
        low = scale.minimum if kind != 2 else min(scale.minimum, 0)
        high = scale.maximum if kind != 2 else min(scale.maximum, 0)  # 2: zero-IDCG
        judgments[query_id] = {d: rng.randint(low, high) for d in sorted(keys)}
    rows: list[str] = []
    ties = rng.random() < 0.4
    for query_id in queries:
        count = rng.randint(1, 16) if rng.randrange(25) else rng.randint(25, 60)
        scores = [
            rng.choice(TIE_SCORES) if ties or rng.random() < 0.2 else rng.uniform(-20, 20)
            for _ in range(count)
        ]
        if rng.random() < 0.6:
            scores.sort(reverse=True)
        ranks = list(range(1, count + 1))
        if rng.randrange(4) == 0:
            ranks = [rng.randint(-2, 6) for _ in range(count)]
        for rank, score in zip(ranks, scores, strict=True):
            sep = rng.choice([" "] * 8 + ["\t", "  ", " \t"])
            rows.append(sep.join([query_id, "Q0", rng.choice(docs), str(rank), repr(score), "t"]))
    if rng.randrange(4) == 0:
        rng.shuffle(rows)  # queries interleaved
    if rng.randrange(3) == 0:
        for _ in range(rng.randint(1, 4)):
            extra = rng.choice([*BAD_LINES, "# a comment", "", "   ", "\udcff", "q1 Q0 d\rx 1 1 t"])
            rows.insert(rng.randint(0, len(rows)), extra)
    end = "\r\n" if rng.randrange(4) == 0 else "\n"
    text = end.join(rows) + (end if rng.randrange(5) else "")
    data = text.encode("utf-8", "surrogateescape")  # "\udcff": a byte that is not UTF-8
    if rng.randrange(8) == 0:
        data = b"\xef\xbb\xbf" + data
    if rng.randrange(8) == 0:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path, judgments, contract


def reference_report(path: Path, judgments: Judged, contract: Contract) -> AuditReport:
    return audit_of_read(read_run(path, collect_errors=True), judgments, contract)


def audit_of_read(run: RunFile, judgments: Judged, contract: Contract) -> AuditReport:
    """The reference audit of a run the reference reader has read."""
    return audit_run(
        run.entries,
        judgments,
        contract.k,
        contract,
        run="run",
        bad_lines=run.bad_lines,
        lines=run.lines,
    )


def fast_report(path: Path, judgments: Judged, contract: Contract) -> AuditReport:
    collected = read_run_columns_collecting(path)
    return audit_columns(
        collected.columns,
        judgments,
        contract.k,
        contract,
        run="run",
        bad_lines=collected.bad_lines,
        lines=collected.lines,
    )


@contextmanager
def small_pieces(rng: random.Random) -> Iterator[None]:
    """Sometimes shrink the reader's blocks and the hasher's chunks and parts,
    so that every splitting path runs on a small file."""
    with ExitStack() as stack:
        if rng.randrange(4) == 0:
            stack.enter_context(_set(run_blocks, BLOCK_BYTES=64, SMALLEST_SPAN=16))
        if rng.randrange(4) == 0:
            workers = rng.choice([1, 3])
            stack.enter_context(
                _set(fast_keys, workers=lambda: workers, CHUNK_ROWS=2, PARALLEL_ROWS=0)
            )
        yield


@contextmanager
def _set(module: Any, **values: Any) -> Iterator[None]:
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def show_difference(expected: AuditReport, got: AuditReport) -> str:
    want, have = expected.to_dict(), got.to_dict()
    lines = [
        f"{key}: {want[key]!r} != {have[key]!r}"
        for key in want
        if key != "findings" and want[key] != have[key]
    ]
    if expected.findings != got.findings:
        lines += [
            f"{kind}: {getattr(expected.findings, kind)!r}\n   != {getattr(got.findings, kind)!r}"
            for kind in want["findings"]
            if getattr(expected.findings, kind) != getattr(got.findings, kind)
        ]
    return "\n".join(lines)


@pytest.mark.parametrize("batch", range(BATCHES))
def test_the_columnar_audit_is_the_reference_audit_on_random_files(
    tmp_path: Path, batch: int
) -> None:
    for seed in range(batch * PER_BATCH, (batch + 1) * PER_BATCH):
        rng = random.Random(seed)
        path, judgments, contract = write_case(tmp_path / f"run{seed}", rng)
        expected = reference_report(path, judgments, contract)
        with small_pieces(rng):
            got = fast_report(path, judgments, contract)
        assert got == expected, f"seed {seed}:\n{show_difference(expected, got)}"
        path.unlink()


# ----------------------------------------------------------------------- chunks


@dataclass(frozen=True, eq=False)
class Chunk:
    query_ids: pa.Array
    doc_ids: pa.Array
    scores: np.ndarray
    ranks: np.ndarray
    lines: np.ndarray | None


def whole_query_chunks(columns: RunColumns, rng: random.Random) -> list[Chunk] | None:
    """The run cut at random query boundaries (None: it splits a query)."""
    query_ids = columns.query_ids.to_pylist()
    starts = [i for i in range(len(query_ids)) if i == 0 or query_ids[i] != query_ids[i - 1]]
    if len({query_ids[i] for i in starts}) != len(starts):
        return None
    cuts = sorted(rng.sample(starts[1:], rng.randint(0, len(starts) - 1)))
    bounds = [0, *cuts, len(query_ids)]
    numbers = columns.line_numbers()
    return [
        Chunk(
            columns.query_ids.slice(low, high - low),
            columns.doc_ids.slice(low, high - low),
            columns.scores[low:high],
            columns.ranks[low:high],
            numbers[low:high],
        )
        for low, high in pairwise(bounds)
    ]


@pytest.mark.slow
def test_chunks_of_whole_queries_audited_apart_and_merged_give_the_same_report(
    tmp_path: Path,
) -> None:
    checked = 0
    for seed in range(600):
        rng = random.Random(10**6 + seed)
        path, judgments, contract = write_case(tmp_path / f"run{seed}", rng)
        collected = read_run_columns_collecting(path)
        chunks = whole_query_chunks(collected.columns, rng)
        if chunks is None:
            continue
        parts = [audit_part(chunk, judgments, contract.k, contract) for chunk in chunks]
        got = finish_audit(
            parts,
            judgments,
            contract.k,
            contract,
            run="run",
            bad_lines=collected.bad_lines,
            lines=collected.lines,
        )
        expected = reference_report(path, judgments, contract)
        assert got == expected, f"seed {seed}:\n{show_difference(expected, got)}"
        checked += 1
    assert checked > 300


def test_unknown_queries_holes_are_the_reference_ones(tmp_path: Path) -> None:
    checked = 0
    for seed in range(300):
        rng = random.Random(2 * 10**6 + seed)
        path, judgments, contract = write_case(tmp_path / f"run{seed}", rng)
        run = read_run(path, collect_errors=True)
        report = reference_report(path, judgments, contract)
        if not report.findings.unknown_queries:
            continue
        unknown = set(report.findings.unknown_queries)
        entries: dict[str, list[RunEntry]] = {}
        for entry in run.entries:
            if entry.query_id in unknown:
                entries.setdefault(entry.query_id, []).append(entry)
        part = audit_part(
            read_run_columns_collecting(path).columns, judgments, contract.k, contract
        )
        expected = audit_queries(report, judgments, contract, unknown_entries=entries)
        got = audit_queries(report, judgments, contract, unknown_holes=part.unknown_holes)
        assert got == expected, seed
        checked += 1
    assert checked > 50


def test_ties_are_counted_at_the_contracts_precision(tmp_path: Path) -> None:
    """68.41769638061524 and 68.41769618988037 are two doubles and one float:
    a tie for trec_eval 9 (``single``), none for trec_eval 10 (``double``). Both
    audits report the group with the score its members share, and the rank
    column that puts the lower double first disagrees only with doubles."""
    path = tmp_path / "run"
    path.write_text(
        "q Q0 b 2 68.41769638061524 t\nq Q0 c 1 68.41769618988037 t\nq Q0 a 3 68.4176 t\n"
    )
    judgments = {"q": {"a": 1, "b": 2, "c": 0}}
    single = np.float32(68.41769638061524).item()
    for precision, ties, disagreements in (("double", (), 1), ("single", (("c", "b"),), 0)):
        contract = Contract(k=2, score_precision=precision)
        expected = reference_report(path, judgments, contract)
        assert fast_report(path, judgments, contract) == expected
        found = expected.findings
        assert tuple(tie.doc_ids for tie in found.ties) == ties
        assert all(tie.score == single for tie in found.ties)
        assert len(found.rank_disagreements) == disagreements


# ----------------------------------------------------------------------- real runs


def real_cases() -> list[tuple[str, str, Scale]]:
    """Every run of the shared data with its qrels: the repository's copy,
    and the shared folder itself when it is there (it holds a few more)."""
    cases = [
        (f"{d}/runs/{run.name}", f"{d}/qrels.{d}.txt.gz", Scale(0, 3))
        for d in ("dl19-passage", "dl20-passage")
        for run in sorted((DATA / d / "runs").glob("*.trec.gz"))
    ]
    cases += [
        (f"dl-hard/runs/{run.name}", "dl-hard/dl_hard-passage.qrels.gz", Scale(0, 3))
        for run in sorted((DATA / "dl-hard" / "runs").glob("*.trec.gz"))
    ]
    cases.append(("noveleval/google-order.run.trec.gz", "noveleval/qrels.txt.gz", Scale(0, 3)))
    for results in ("results.test.gz", "results.trunc.gz"):
        cases.append((f"trec_eval-test/{results}", "trec_eval-test/qrels.test.gz", Scale(0, 3)))
    cases.append(
        ("trec_eval-test/results.test.gz", "trec_eval-test/qrels.rel_level.gz", Scale(-1, 4))
    )
    return [(str(DATA / run), str(DATA / qrels), scale) for run, qrels, scale in cases]


def shared_cases() -> list[tuple[str, str, Scale]]:
    if not SHARED.is_dir():
        return []
    return [
        (
            str(SHARED / "dl-hard/runs/doc" / name),
            str(SHARED / "dl-hard/dl_hard-doc.qrels"),
            Scale(0, 3),
        )
        for name in sorted(p.name for p in (SHARED / "dl-hard/runs/doc").glob("*.trec.gz"))
    ] + [
        (str(SHARED / "trec_eval-test" / run), str(SHARED / "trec_eval-test" / qrels), Scale(0, 3))
        for run, qrels in (
            ("results-302.test", "qrels-302.test"),
            ("results.comment.test.gz", "qrels.test"),
        )
    ]


@pytest.mark.parametrize(
    ("run", "qrels", "scale"),
    real_cases() + shared_cases(),
    ids=lambda value: Path(value).name if isinstance(value, str) else str(value),
)
def test_the_columnar_audit_is_the_reference_audit_on_real_runs(
    run: str, qrels: str, scale: Scale
) -> None:
    judgments = read_qrels(qrels, scale).judgments
    # read once by the reference (half its time), audited under four contracts
    read = read_run(Path(run), collect_errors=True)
    for k in (10, 100):
        for ties in ("trec_eval", "rank"):
            contract = Contract(k=k, scale=scale, ties=ties)
            expected = audit_of_read(read, judgments, contract)
            got = fast_report(Path(run), judgments, contract)
            assert got == expected, f"k={k}, ties={ties}:\n{show_difference(expected, got)}"
