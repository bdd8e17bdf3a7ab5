"""How far to trust a model's labels, on a workspace labelled by ``prelabel``
against the local server: ``agreement --confusion``, the line of ``compare
--prior model:NAME``, and the probable verdicts taking the labels as their
evidence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from judgepool.core.team.confusion import confusion
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from tests.openai_judge import JudgeConfig, judge_server
from tests.prelabel_support import HoledWorkspace, holed_workspace


def test_the_table_counts_shares_and_leanings() -> None:
    # person 0 -> model 0, 0, 1; person 2 -> model 1, 2; person 3 -> model 3
    found = confusion("model:m", [0, 1, 2, 3], [(0, 0), (0, 0), (0, 1), (2, 1), (2, 2), (3, 3)],
                      ["ann"], 6)  # fmt: skip
    assert found.counts == ((2, 1, 0, 0), (0, 0, 0, 0), (0, 1, 1, 0), (0, 0, 0, 1))
    assert found.row_shares()[0] == (2 / 3, 1 / 3, 0.0, 0.0)
    assert found.row_shares()[1] == (None, None, None, None)
    zero, _, two, _ = found.leanings()
    assert (zero.same, zero.generous, zero.strict, zero.mean_gap) == (2, 1, 0, 1 / 3)
    assert (two.same, two.generous, two.strict, two.mean_gap) == (1, 0, 1, -0.5)
    assert found.line() == (
        "model:m vs people on 6 items (6 pairs): same grade 0.67, too generous 0.17, "
        "too strict 0.17; most generous on grade 0 (0.33 higher), most strict on grade 2 "
        "(0.50 lower)"
    )


@pytest.fixture
def labelled(tmp_path: Path, cli: Callable[..., Result]) -> HoledWorkspace:
    """Two runs over 6 queries; alice graded every other item; the model
    (noise 0.3) labelled every item, so it shares 30 items with alice."""
    holed = holed_workspace(tmp_path, queries=6, depth=10, runs=2)
    with open_workspace(holed.path) as ws:
        for number, (query_id, doc_id) in enumerate(holed.items):
            if number % 2 == 0:
                judge(ws, query_id, doc_id, holed.truth[(query_id, doc_id)], annotator="alice")
    listing = tmp_path / "all.txt"
    listing.write_text("".join(f"{q}\t{d}\n" for q, d in holed.items), encoding="utf-8")
    with judge_server(JudgeConfig(grades=holed.grades, noise=0.3, seed=3)) as server:
        result = cli(
            "prelabel", holed.path, "--model", "judge", "--endpoint", server.url,
            "--items", listing,
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return holed


def test_agreement_confusion(labelled: HoledWorkspace, cli: Callable[..., Result]) -> None:
    text = cli("agreement", labelled.path, "--confusion", "model:judge")
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert "30 items graded by both (30 pairs, one per person; people: alice)" in lines[0]
    assert lines[2].split() == ["person", "model", "0", "model", "1", "model", "2", "model",
                                "3", "pairs"]  # fmt: skip
    assert lines[-1].startswith("model:judge vs people on 30 items (30 pairs): same grade ")
    data = json.loads(
        cli("agreement", labelled.path, "--confusion", "model:judge", "--format", "json").stdout
    )
    (table,) = data["confusion"]
    assert table["items"] == 30 and table["people"] == ["alice"]
    assert sum(map(sum, table["counts"])) == 30
    # the noise moves a grade by one, never more
    for person, row in enumerate(table["counts"]):
        assert all(count == 0 for model, count in enumerate(row) if abs(model - person) > 1)
    assert [lean["grade"] for lean in table["per_grade"]] == [0, 1, 2, 3]


def test_agreement_confusion_refuses_an_unknown_model(
    labelled: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    result = cli("agreement", labelled.path, "--confusion", "model:other")
    assert result.exit_code == 2
    assert "holds no grade of 'model:other' (models with grades: 'model:judge')" in result.stderr


def test_probable_verdicts_use_the_labels(
    labelled: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    common = ("compare", "--workspace", labelled.path, "--unjudged", "zero", "--format", "json")
    with_model = json.loads(cli(*common, "--prior", "model:judge").stdout)
    with_rank = json.loads(cli(*common).stdout)
    prior = with_model["prior"]
    # calibrated on alice's 30 grades, and every one of the 30 holes carries the model's
    assert prior["kind"] == "model:judge" and prior["items"] == 30
    assert prior["model_holes"] == 30
    assert with_rank["prior"]["kind"] == "rank"
    # the model's grades of the holes move the expected scores off the rank prior's
    expected = {run["run"]: run["expected_ndcg"] for run in with_model["runs"]}
    assert expected != {run["run"]: run["expected_ndcg"] for run in with_rank["runs"]}
    assert with_model["model_confusion"]["items"] == 30
    table = cli("compare", "--workspace", labelled.path, "--unjudged", "zero",
                "--prior", "model:judge")  # fmt: skip
    trust = [line for line in table.stdout.splitlines() if line.startswith("trust ")]
    assert len(trust) == 1
    assert "model:judge vs people on 30 items (30 pairs): same grade" in trust[0]
