"""The fast engine against the reference on hand-written runs (the contract's
reference values, zero-IDCG queries, refusals, comments and blank lines, a
long tie group), on the real runs of tests/data under several contracts, and
on columns handed over by the store rather than read from a file. Each case
goes through `check_same_as_reference` (see `test_fast_vs_reference`, which
holds the random runs).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Contract, Scale, preset
from judgepool.formats.trec import read_qrels, read_run
from tests.compare import assert_same_evaluation
from tests.core.fast_equivalence import check_same_as_reference, outcome_of, write_run

DATA = Path(__file__).resolve().parents[1] / "data"

TEACHING = {"t": {"A": 3, "B": 2, "C": 1, "D": 0}}


@pytest.mark.parametrize(
    ("docs", "k", "universe", "gain", "ndcg"),
    [
        (["B", "C"], 2, "judged", "linear", 0.617320),
        (["B", "C"], 2, "candidates", "linear", 1.0),
        (["A", "B"], 2, "judged", "linear", 1.0),
        (["B"], 1, "judged", "linear", 0.666667),
        (["C", "B"], 2, "judged", "linear", 0.530721),
        (["D"], 2, "judged", "linear", 0.0),
        (["B", "C"], 2, "judged", "exponential", 0.408300),
    ],
)
def test_the_contracts_reference_values(
    tmp_path: Path, docs: list[str], k: int, universe: str, gain: str, ndcg: float
) -> None:
    rows = [("t", d, i + 1, float(len(docs) - i)) for i, d in enumerate(docs)]
    contract = Contract(k=k, universe=universe, gain=gain)
    outcome = check_same_as_reference(write_run(tmp_path / "run", rows), TEACHING, contract)
    assert outcome[1].per_query[0].ndcg == pytest.approx(ndcg, abs=1e-6)


def test_zero_idcg_macro_and_pooled(tmp_path: Path) -> None:
    judgments = {"q1": {"A": 3}, "q2": {"B": 1}, "z": {"Z": 0}}
    path = write_run(tmp_path / "run", [("q1", "A", 1, 1.0), ("z", "Z", 1, 1.0)])
    for policy in ("zero", "one", "exclude"):
        contract = Contract(k=1, zero_idcg=policy, missing="zero")
        evaluation = check_same_as_reference(path, judgments, contract)[1]
        assert evaluation.summary.ndcg_pooled == pytest.approx(0.75)
        assert evaluation.summary.zero_idcg == 1


def test_policies_refuse_with_every_entry_and_line(tmp_path: Path) -> None:
    rows = [
        ("t", "B", 1, 2.0),
        ("t", "C", 2, 1.0),
        ("t", "B", 3, 0.5),
        ("u", "X", 1, 1.0),
        ("u", "X", 2, 1.0),
    ]  # "u" is unknown: its duplicate is not the judgments' business
    path = write_run(tmp_path / "run", rows)
    kind, (entries, _) = check_same_as_reference(path, TEACHING, Contract(k=3))
    assert kind == "DuplicatesRejected"
    assert [(e.query_id, e.doc_id, e.lines) for e in entries] == [("t", "B", (1, 3))]
    kind, (entries, _) = check_same_as_reference(
        write_run(tmp_path / "run2", [("t", "E", 1, 1.0), ("t", "A", 2, 0.5), ("t", "F", 3, 0.1)]),
        TEACHING,
        Contract(k=2),
    )
    assert kind == "UnjudgedRejected"
    assert [(e.query_id, e.doc_id, e.rank) for e in entries] == [("t", "E", 1)]


def test_an_empty_run_and_a_run_of_unknown_queries(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"# nothing here\n")
    for contract in (preset("trec_eval"), Contract(missing="skip", universe="candidates")):
        check_same_as_reference(empty, TEACHING, contract)
        check_same_as_reference(
            write_run(tmp_path / "unknown", [("x", "A", 1, 1.0)]), TEACHING, contract
        )
        check_same_as_reference(empty, {}, contract)


def test_lines_come_from_the_file_not_the_row(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("# header\nt Q0 B 1 2 x\n\nt Q0 C 2 1 x\n# note\nt Q0 B 3 0.5 x\n")
    kind, (entries, _) = check_same_as_reference(path, TEACHING, Contract(k=3))
    assert kind == "DuplicatesRejected" and entries[0].lines == (2, 6)


def test_a_long_tie_group_across_the_cutoff(tmp_path: Path) -> None:
    # 200 documents with one score, the relevant ones scattered: the tie range
    # spans from all zeros to all relevant at the top
    judged = {"t": {f"d{i:03}": (3 if i % 17 == 0 else 0) for i in range(0, 200, 3)}}
    rows = [("t", f"d{i:03}", i + 1, 1.0) for i in range(200)]
    path = write_run(tmp_path / "run", rows)
    for ties in ("trec_eval", "docid", "rank", "input"):
        result = check_same_as_reference(path, judged, Contract(k=10, ties=ties, unjudged="zero"))
        record = result[1].per_query[0]
        assert record.ndcg_tie_min == 0.0 and record.ndcg_tie_max == 1.0


def _gz_judgments(name: str, scale: Scale) -> dict[str, dict[str, int]]:
    return read_qrels(DATA / name, scale).judgments


@pytest.mark.parametrize(
    ("run", "qrels", "scale"),
    [
        (
            "dl19-passage/runs/repllama.top1000.trec.gz",
            "dl19-passage/qrels.dl19-passage.txt.gz",
            Scale(0, 3),
        ),
        ("dl-hard/runs/bm25+t5zs.trec.gz", "dl-hard/dl_hard-passage.qrels.gz", Scale(0, 3)),
        ("trec_eval-test/results.test.gz", "trec_eval-test/qrels.rel_level.gz", Scale(-1, 4)),
    ],
)
def test_real_runs_under_several_contracts(
    tmp_path: Path, run: str, qrels: str, scale: Scale
) -> None:
    source = DATA / run
    if not source.exists():
        matches = sorted((DATA / Path(run).parent).glob("*"))
        pytest.fail(f"{source} is missing (the folder holds {[m.name for m in matches]})")
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(gzip.decompress(source.read_bytes())))
    judgments = _gz_judgments(qrels, scale)
    for contract in (
        preset("trec_eval", scale=scale),
        preset("trec_eval", scale=scale, k=100, unjudged="condense", relevant_from=2),
        Contract(
            k=20,
            scale=scale,
            gain="exponential",
            universe="candidates",
            unjudged="zero",
            duplicates="first",
            ties="rank",
            zero_idcg="exclude",
            missing="skip",
        ),
    ):
        check_same_as_reference(path, judgments, contract)


def test_columns_from_elsewhere_with_explicit_lines(tmp_path: Path) -> None:
    # the store hands over its own columns: explicit line numbers, chunked or
    # large_string IDs; the engine takes anything with RunColumns' attributes
    @dataclass(frozen=True)
    class Stored:
        query_ids: Any
        doc_ids: Any
        scores: Any
        ranks: Any
        lines: Any

    path = tmp_path / "run"
    path.write_text("# head\nt Q0 B 1 2 x\nt Q0 C 2 2 x\n\nt Q0 B 3 0.5 x\nu Q0 A 1 1 x\n")
    entries = read_run(path).entries
    stored = Stored(
        pa.chunked_array([[e.query_id for e in entries[:2]], [e.query_id for e in entries[2:]]]),
        pa.array([e.doc_id for e in entries], type=pa.large_string()),
        np.array([e.score for e in entries]),
        np.array([e.rank for e in entries]),
        np.array([e.line for e in entries]),
    )
    for contract in (Contract(k=2), Contract(k=2, duplicates="first", unjudged="zero")):
        expected = outcome_of(lambda c=contract: evaluate(group_by_query(entries), TEACHING, c))
        got = outcome_of(lambda c=contract: evaluate_columns(stored, TEACHING, c))
        assert got[0] == expected[0]
        if expected[0] == "ok":
            assert_same_evaluation(expected[1], got[1])
        else:
            assert got[1] == expected[1]
