"""``compare --prior``: probable verdicts from the rank prior or from a model's
labels, given as a qrels file or held by the workspace (where they are then
evidence, not judgments), and the refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.cli.conftest import ranked, write_qrels, write_run

QUERIES = [f"q{i}" for i in range(40)]


def case(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """Two runs that differ only at rank 2, where every document is a hole:
    run A holds one the model calls perfect, run B one it calls useless; the
    model agrees with people on the 80 judged items."""
    people = {q: {"judged-top": 3, "judged-low": 0} for q in QUERIES}
    model = {q: {"judged-top": 3, "judged-low": 0, "hole-good": 3, "hole-bad": 0} for q in QUERIES}
    qrels = write_qrels(tmp_path / "people.qrels", people)
    labels = write_qrels(tmp_path / "model.qrels", model)
    a = write_run(
        tmp_path / "a.trec", [r for q in QUERIES for r in ranked(q, ["judged-top", "hole-good"])]
    )
    b = write_run(
        tmp_path / "b.trec", [r for q in QUERIES for r in ranked(q, ["judged-top", "hole-bad"])]
    )
    return qrels, labels, a, b


def compare_json(cli: Callable[..., Result], *args: Any) -> dict[str, Any]:
    result = cli("compare", *map(str, args), "--unjudged", "zero", "--format", "json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_rank_prior_cannot_tell_the_holes_apart_and_the_models_labels_can(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, labels, a, b = case(tmp_path)
    rank = compare_json(cli, a, b, "--qrels", qrels, "-k", "2")
    (pair,) = rank["pairs"]
    assert rank["prior"]["kind"] == "rank" and rank["prior"]["model_kappa_linear"] is None
    # rank 1 holds the 40 judged documents; nothing judged at rank 2
    assert rank["prior"]["counts"] == {"1": {"3": 40}}
    assert pair["verdict"] == "could flip" and 0.4 < pair["p_a_ahead"] < 0.6
    model = compare_json(cli, a, b, "--qrels", qrels, "-k", "2", "--prior", "model:judge",
                         "--labels", labels)  # fmt: skip
    (pair,) = model["pairs"]
    prior = model["prior"]
    assert prior["kind"] == "model:judge" and prior["items"] == 80 and prior["model_holes"] == 80
    assert prior["counts"] == {"0": {"0": 40}, "3": {"3": 40}}
    assert prior["model_kappa_linear"] == pytest.approx(1.0)
    assert pair["verdict"] == "probable" and pair["probable_leader"] == "a"
    assert pair["p_a_ahead"] > 0.95 and pair["diff_bounds"][0] < 0 < pair["diff_bounds"][1]
    assert "probably" in pair["sentence"] and "a.trec ahead" in pair["sentence"]
    table = cli("compare", a, b, "--qrels", qrels, "-k", "2", "--unjudged", "zero", "--prior",
                "model:judge", "--labels", labels).stdout  # fmt: skip
    assert "prior      model:judge" in table and "linear kappa 1.000" in table
    assert "80 holes carry its grade" in table


def test_a_workspace_holds_the_labels_as_evidence_not_judgments(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, labels, a, b = case(tmp_path)
    ws = str(tmp_path / "team.sqlite")
    for args in (
        ("init", ws),
        ("import", ws, "qrels", str(qrels), "--annotator", "alice"),
        ("import", ws, "qrels", str(labels), "--source", "model:judge"),
        ("import", ws, "run", str(a), "--name", "a"),
        ("import", ws, "run", str(b), "--name", "b"),
    ):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    # a model's grades are no judgments: the holes it labelled stay holes
    plain = compare_json(cli, "--workspace", ws, "-k", "2")
    assert plain["pairs"][0]["verdict"] == "could flip"
    assert plain["judgments"]["models"] == {} and plain["judgments"]["imports"] > 0
    assert "+model:" not in plain["qrels_digest"]
    # counted only when asked, and then named in the digest and the provenance
    counted = compare_json(cli, "--workspace", ws, "-k", "2", "--with-model", "judge")
    assert counted["pairs"][0]["verdict"] == "settled"
    assert counted["qrels_digest"].endswith("+model:judge")
    assert counted["judgments"]["models"] == {"judge": 80}
    assert "model:judge's labels" in counted["pairs"][0]["sentence"]
    evidence = compare_json(cli, "--workspace", ws, "-k", "2", "--prior", "model:judge")
    (pair,) = evidence["pairs"]
    assert evidence["qrels_digest"] == plain["qrels_digest"]  # the people's judgments alone
    assert evidence["prior"]["items"] == 80 and evidence["prior"]["model_holes"] == 80
    assert pair["verdict"] == "probable" and pair["probable_leader"] == "a"
    table = cli("compare", "--workspace", ws, "-k", "2", "--unjudged", "zero", "--prior",
                "model:judge")  # fmt: skip
    assert "rests on" in table.stdout
    assert "model:judge's 160 labels not used (80 on items" in table.stderr
    both = cli("compare", "--workspace", ws, "--prior", "model:judge", "--with-model", "judge")
    assert both.exit_code != 0 and "both judgments and the evidence" in both.stderr
    missing = cli("compare", "--workspace", ws, "--prior", "model:other", "--unjudged", "zero")
    assert missing.exit_code != 0 and "model:other" in missing.stderr
    assert "'model:judge'" in missing.stderr and "Traceback" not in missing.output


def test_too_few_items_to_calibrate_on_are_refused_with_the_count(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, _, a, b = case(tmp_path)
    few = write_qrels(tmp_path / "few.qrels", {q: {"judged-top": 3} for q in QUERIES[:12]})
    result = cli("compare", str(a), str(b), "--qrels", str(qrels), "--unjudged", "zero",
                 "--prior", "model:judge", "--labels", str(few))  # fmt: skip
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "at least 30 items" in result.stderr and "12 found" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--labels", "x.qrels"), "--labels goes with --prior model:NAME"),
        (("--prior", "model:judge"), "needs the model's grades"),
        (("--prior", "bayes"), "--prior must be runs, rank or model:NAME"),
        (("--prior", "model:"), "--prior must be runs, rank or model:NAME"),
        (("--confidence", "0.5"), "--confidence"),
        (("--draws", "-1"), "--draws"),
    ],
)
def test_refusals(
    cli: Callable[..., Result], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    qrels, _, a, b = case(tmp_path)
    result = cli("compare", str(a), str(b), "--qrels", str(qrels), "--unjudged", "zero", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


def test_no_draws_no_probable_verdicts_and_it_says_why(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, _, a, b = case(tmp_path)
    data = compare_json(cli, a, b, "--qrels", qrels, "--draws", "0")
    assert data["prior"] is None and data["draws"] == 0 and "--draws 0" in data["draws_note"]
    (pair,) = data["pairs"]
    assert pair["p_a_ahead"] is None and pair["verdict"] == "could flip"
    same = compare_json(cli, a, b, "--qrels", qrels, "--draws", "300", "--seed", "5")
    again = compare_json(cli, a, b, "--qrels", qrels, "--draws", "300", "--seed", "5")
    assert same == again and same["draws"] == 300
