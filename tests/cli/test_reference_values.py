"""Every reference value and rejection of evaluation-contract.md, through the command line,
with both engines (the fast one and the plain reference)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.cli.conftest import ranked, write_qrels, write_run

TEACHING = {"q": {"A": 3, "B": 2, "C": 1, "D": 0}}
ENGINES = ["fast", "reference"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def teaching_qrels(tmp_path: Path) -> Path:
    return write_qrels(tmp_path / "teaching.qrels", TEACHING)


def one_query(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    qrels: Path,
    docs: list[str],
    *options: str,
) -> dict[str, Any]:
    run = write_run(tmp_path / "run.trec", ranked("q", docs))
    [result] = score_json(run, "--qrels", qrels, *options)
    [record] = result["per_query"]
    return record


@pytest.mark.parametrize(
    ("docs", "k", "options", "dcg", "idcg", "ndcg"),
    [
        (["B", "C"], 2, [], 2.630930, 4.261860, 0.617320),
        (["B", "C"], 2, ["--universe", "candidates"], 2.630930, 2.630930, 1.0),
        (["A", "B"], 2, [], None, None, 1.0),
        (["B"], 1, [], None, None, 0.666667),
        (["C", "B"], 2, [], None, None, 0.530721),
        (["D"], 2, [], None, None, 0.0),
        (["B", "C"], 2, ["--gain", "exponential"], None, None, 0.408300),
    ],
)
def test_teaching_reference_values(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    teaching_qrels: Path,
    engine: str,
    docs: list[str],
    k: int,
    options: list[str],
    dcg: float | None,
    idcg: float | None,
    ndcg: float,
) -> None:
    record = one_query(
        score_json, tmp_path, teaching_qrels, docs, "-k", str(k), "--engine", engine, *options
    )
    assert record["ndcg"] == pytest.approx(ndcg, abs=5e-7)
    if dcg is not None:
        assert record["dcg"] == pytest.approx(dcg, abs=5e-7)
        assert record["idcg"] == pytest.approx(idcg, abs=5e-7)


def test_candidate_only_is_reported_beside_the_fixed_universe(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    teaching_qrels: Path,
    engine: str,
) -> None:
    record = one_query(
        score_json, tmp_path, teaching_qrels, ["B", "C"], "-k", "2", "--engine", engine
    )
    assert record["ndcg"] == pytest.approx(0.617320, abs=5e-7)
    assert record["candidate_ndcg"] == pytest.approx(1.0)


def test_nothing_returned_scores_zero_under_missing_zero(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    teaching_qrels: Path,
    engine: str,
) -> None:
    # the run returns nothing for the judged query (a run file without any
    # line is refused: it scores nothing, and says so)
    run = tmp_path / "nothing.trec"
    run.write_text("other Q0 A 1 1.0 t\n")
    [result] = score_json(run, "--qrels", teaching_qrels, "-k", "2", "--missing", "zero",
                          "--engine", engine)  # fmt: skip
    assert result["per_query"][0]["ndcg"] == 0.0
    assert result["per_query"][0]["missing"] is True
    assert result["summary"]["missing"] == 1
    assert result["summary"]["ndcg"] == 0.0


@pytest.mark.parametrize(
    ("policy", "mean", "excluded"), [("zero", 0.5, 0), ("one", 1.0, 0), ("exclude", 1.0, 1)]
)
def test_zero_idcg_policies(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    engine: str,
    policy: str,
    mean: float,
    excluded: int,
) -> None:
    qrels = write_qrels(tmp_path / "q", {"z": {"Z": 0}, "good": {"G": 1}})
    run = write_run(tmp_path / "r", ranked("z", ["Z"]) + ranked("good", ["G"]))
    [result] = score_json(run, "--qrels", qrels, "--zero-idcg", policy, "--engine", engine)
    summary = result["summary"]
    assert summary["ndcg"] == pytest.approx(mean)
    assert summary["zero_idcg"] == 1  # reported whatever the policy
    assert summary["excluded"] == excluded
    z = next(r for r in result["per_query"] if r["query_id"] == "z")
    assert z["zero_idcg"] is True
    assert z["ndcg"] == {"zero": 0.0, "one": 1.0, "exclude": None}[policy]


def test_macro_mean_and_pooled_ratio(
    score_json: Callable[..., list[dict[str, Any]]], tmp_path: Path, engine: str
) -> None:
    qrels = write_qrels(tmp_path / "q", {"q1": {"A": 3}, "q2": {"B": 1}})
    run = write_run(tmp_path / "r", ranked("q1", ["A"]))
    [result] = score_json(run, "--qrels", qrels, "-k", "1", "--engine", engine)
    per_query = {r["query_id"]: r for r in result["per_query"]}
    assert per_query["q1"]["dcg"] == pytest.approx(3.0) and per_query["q1"]["idcg"] == 3.0
    assert per_query["q2"]["dcg"] == 0.0 and per_query["q2"]["idcg"] == 1.0
    assert result["summary"]["ndcg"] == pytest.approx(0.5)
    assert result["summary"]["ndcg_pooled"] == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("order", "gain", "expected"),
    [
        ("abcde", "linear", 0.825450),
        ("abcde", "exponential", 0.737872),
        ("cbade", "linear", 0.930451),
    ],
)
def test_five_results(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    engine: str,
    order: str,
    gain: str,
    expected: float,
) -> None:
    # grades in rank order [2, 0, 3, 1, 0]; promoting the 3 gives [3, 0, 2, 1, 0]
    qrels = write_qrels(tmp_path / "q", {"q": {"a": 2, "b": 0, "c": 3, "d": 1, "e": 0}})
    record = one_query(score_json, tmp_path, qrels, list(order), "-k", "5", "--gain", gain,
                       "--engine", engine)  # fmt: skip
    assert record["ndcg"] == pytest.approx(expected, abs=5e-7)


# Rejections: each a clear error, nothing scored (no result on standard output).


def test_duplicate_document_is_rejected(
    cli: Callable[..., Result], tmp_path: Path, teaching_qrels: Path, engine: str
) -> None:
    run = write_run(tmp_path / "r", [("q", "B", 2.0), ("q", "C", 1.0), ("q", "B", 0.5)])
    result = cli("score", run, "--qrels", teaching_qrels, "-k", "3", "--engine", engine)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "duplicate" in result.stderr and "'B'" in result.stderr and "lines 1, 3" in result.stderr
    assert "--duplicates first" in result.stderr


def test_duplicates_first_keeps_the_first_copy(
    score_json: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    teaching_qrels: Path,
    engine: str,
) -> None:
    run = write_run(tmp_path / "r", [("q", "B", 2.0), ("q", "C", 1.0), ("q", "B", 0.5)])
    [result] = score_json(run, "--qrels", teaching_qrels, "-k", "3", "--duplicates", "first",
                          "--engine", engine)  # fmt: skip
    # [B, C] at k=3 against A=3, B=2, C=1: DCG 2 + 1/log2 3, IDCG 3 + 2/log2 3 + 1/2
    assert result["per_query"][0]["ndcg"] == pytest.approx(2.630930 / 4.761860, abs=5e-7)
    assert result["summary"]["duplicates"] == 1


def test_unjudged_document_is_rejected_by_default(
    cli: Callable[..., Result], tmp_path: Path, teaching_qrels: Path, engine: str
) -> None:
    run = write_run(tmp_path / "r", ranked("q", ["B", "X"]))
    result = cli("score", run, "--qrels", teaching_qrels, "-k", "2", "--engine", engine)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "'X'" in result.stderr and "rank 2" in result.stderr
    assert "--unjudged zero" in result.stderr


@pytest.mark.parametrize("k", ["0", "-3", "true", "2.5"])
def test_bad_cutoffs_are_refused(
    cli: Callable[..., Result], tmp_path: Path, teaching_qrels: Path, k: str
) -> None:
    run = write_run(tmp_path / "r", ranked("q", ["B"]))
    result = cli("score", run, "--qrels", teaching_qrels, "-k", k)
    assert result.exit_code == 2
    assert result.stdout == ""


@pytest.mark.parametrize(("grade", "message"), [("-1", "outside the scale 0..3"),
                                                ("1.5", "not an integer")])  # fmt: skip
def test_bad_grades_are_refused_with_file_and_line(
    cli: Callable[..., Result], tmp_path: Path, grade: str, message: str
) -> None:
    qrels = tmp_path / "bad.qrels"
    qrels.write_text(f"q 0 A 3\nq 0 B {grade}\n")
    run = write_run(tmp_path / "r", ranked("q", ["A"]))
    result = cli("score", run, "--qrels", qrels)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"{qrels}:2:" in result.stderr and message in result.stderr


def test_negative_grade_is_accepted_on_a_wider_scale(
    score_json: Callable[..., list[dict[str, Any]]], tmp_path: Path, engine: str
) -> None:
    qrels = tmp_path / "wide.qrels"
    qrels.write_text("q 0 A 3\nq 0 B -1\n")
    run = write_run(tmp_path / "r", ranked("q", ["B", "A"]))
    [result] = score_json(run, "--qrels", qrels, "--scale", "-1..4", "-k", "2", "--engine", engine)
    # B is judged (-1, gain 0) and A comes second: 3/log2(3) / 3
    assert result["per_query"][0]["ndcg"] == pytest.approx(1 / 1.5849625007211562)
    assert result["per_query"][0]["judged_at_k"] == 1.0
