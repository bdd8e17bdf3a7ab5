"""A model's labels are evidence, never judgments (issue 31): the workspace of
the bug, with a pool, imported qrels, a person, and a bad model on a real
local server that answers 3 to everything, labelling every pooled item.

The defaults (score, holes, export qrels under every consensus rule) are byte
for byte what they were before the model spoke; no person's or import's
grade moves; ``--with-model`` changes only the items nobody else graded, and
every output says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from judgepool.core.team.consensus import CONSENSUS_RULES
from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from tests.openai_judge import JudgeConfig, judge_server
from tests.prelabel_support import HoledWorkspace, holed_workspace

QUERIES = 6
DEPTH = 10


def _import_nist(holed: HoledWorkspace, tmp_path: Path, cli: Callable[..., Result]) -> None:
    """NIST's grades, imported, for the first three ranks of every query."""
    lines = [
        f"{query_id} 0 {doc_id} {holed.truth[query_id, doc_id]}\n"
        for query_id, doc_id in holed.items
        if int(doc_id.rsplit("-", 1)[1]) <= 3
    ]
    nist = tmp_path / "nist.qrels"
    nist.write_text("".join(lines), encoding="utf-8")
    result = cli("import", holed.path, "qrels", nist)
    assert result.exit_code == 0, result.output


@pytest.fixture
def bug(tmp_path: Path, cli: Callable[..., Result]) -> HoledWorkspace:
    """Two runs over six queries pooled to depth 10; NIST's grades for ranks
    1-3; alice grading ranks 3-5 (on rank 3 against NIST, one grade lower);
    ranks 6-10 nobody graded: the holes."""
    holed = holed_workspace(tmp_path, queries=QUERIES, depth=DEPTH, runs=2)
    result = cli("pool", holed.path, "--depth", str(DEPTH))
    assert result.exit_code == 0, result.output
    _import_nist(holed, tmp_path, cli)
    with open_workspace(holed.path) as ws:
        for query_id, doc_id in holed.items:
            rank = int(doc_id.rsplit("-", 1)[1])
            if 3 <= rank <= 5:
                true = holed.truth[query_id, doc_id]
                grade = max(0, true - 1) if rank == 3 else true
                judge(ws, query_id, doc_id, grade, annotator="alice")
    return holed


def _label_everything_three(holed: HoledWorkspace, cli: Callable[..., Result]) -> None:
    every_three = {key: 3 for key in holed.grades}
    with judge_server(JudgeConfig(grades=every_three)) as server:
        result = cli(
            "prelabel", holed.path, "--model", "judge", "--endpoint", server.url,
            "--items", "pool",
        )  # fmt: skip
    assert result.exit_code == 0, result.output


def _outputs(path: Path, cli: Callable[..., Result]) -> dict[str, str]:
    """What the defaults print: score (refused for holes, and with them at
    gain 0), holes, and the exported qrels under every rule."""
    found = {}
    for name, args in {
        "score": ("score", "--workspace", path),
        "score-zero": ("score", "--workspace", path, "--unjudged", "zero"),
        "score-json": ("score", "--workspace", path, "--unjudged", "zero", "--format", "json"),
        "holes": ("holes", "--workspace", path),
        **{
            f"export-{rule}": ("export", path, "qrels", "--consensus", rule)
            for rule in CONSENSUS_RULES
        },
    }.items():
        result = cli(*args)
        found[name] = f"{result.exit_code}\n{result.stdout}"
    return found


def _qrels(text: str) -> dict[tuple[str, str], int]:
    rows = [line.split() for line in text.splitlines()[1:] if line and not line.startswith("#")]
    return {(q, d): int(g) for q, _, d, g in rows}


def test_a_model_answering_three_to_everything_changes_no_default_output(
    bug: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    before = _outputs(bug.path, cli)
    assert before["score"].startswith("1\n") or "holes" in before["holes"]
    _label_everything_three(bug, cli)
    after = _outputs(bug.path, cli)
    for name in before:
        # scores are stored on every run: their IDs are no output of the scores
        assert after[name] == before[name], name
    # the model did label every pooled item, and it is said where it is left out
    zero = cli("score", "--workspace", bug.path, "--unjudged", "zero")
    assert "model:judge's 60 labels not used (30 on items nobody else graded" in zero.stderr
    assert "--with-model judge" in zero.stderr
    (line, *_) = [json.loads(text) for text in zero_json(bug, cli)]
    assert line["judgments"]["models"] == {} and line["judgments"]["with_model"] is None
    people_and_imports = line["judgments"]["people"] + line["judgments"]["imports"]
    assert people_and_imports == QUERIES * 5  # ranks 1-5 of every query


def zero_json(bug: HoledWorkspace, cli: Callable[..., Result]) -> list[str]:
    result = cli("score", "--workspace", bug.path, "--unjudged", "zero", "--format", "json")
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_no_person_or_import_is_overridden_under_any_rule(
    bug: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    before = {
        rule: _qrels("x\n" + cli("export", bug.path, "qrels", "--consensus", rule).stdout)
        for rule in CONSENSUS_RULES
    }
    _label_everything_three(bug, cli)
    for rule in CONSENSUS_RULES:
        for with_model in ((), ("--with-model", "judge")):
            after = _qrels(
                "x\n" + cli("export", bug.path, "qrels", "--consensus", rule, *with_model).stdout
            )
            assert {key: after[key] for key in before[rule]} == before[rule], (rule, with_model)


def test_with_model_counts_the_labels_only_where_nobody_else_graded(
    bug: HoledWorkspace, cli: Callable[..., Result], tmp_path: Path
) -> None:
    _label_everything_three(bug, cli)
    plain = cli("export", bug.path, "qrels")
    counted = cli("export", bug.path, "qrels", "--with-model", "judge")
    assert counted.exit_code == 0, counted.output
    first, *_ = counted.stdout.splitlines()
    assert first.startswith("# judgepool: model:judge's labels counted as the grades of 30 items")
    without, with_model = _qrels("x\n" + plain.stdout), _qrels("x\n" + counted.stdout)
    added = {key: grade for key, grade in with_model.items() if key not in without}
    assert set(added) == {
        (q, d) for q, d in bug.items if int(d.rsplit("-", 1)[1]) > 5
    }  # the holes, ranks 6-10
    assert set(added.values()) == {3}
    assert {key: with_model[key] for key in without} == without
    # the file reads back as qrels (the comment is skipped): the same universe
    saved = tmp_path / "with-model.qrels"
    saved.write_text(counted.stdout, encoding="utf-8")
    back = cli("score", bug.path.parent / "run.trec", "--qrels", saved, "--format", "json")
    assert back.exit_code == 0, back.output
    # every output names the model
    scored = cli("score", "--workspace", bug.path, "--with-model", "judge", "--format", "json")
    assert scored.exit_code == 0, scored.output
    for text in scored.stdout.splitlines():
        data = json.loads(text)
        assert data["qrels_digest"].endswith("+model:judge")
        assert data["judgments"]["models"] == {"judge": 30}
        assert data["judgments"]["with_model"] == "judge"
    table = cli("score", "--workspace", bug.path, "--with-model", "judge")
    assert "with model:judge's labels where nobody else graded" in table.stdout
    assert "30 of model:judge's labels, on items nobody else graded" in table.stdout
    holes = cli("holes", "--workspace", bug.path, "--with-model", "judge")
    assert "0 unjudged documents" in holes.stdout and "model:judge" in holes.stdout
    compared = cli("compare", "--workspace", bug.path, "--with-model", "judge", "--format", "json")
    data = json.loads(compared.stdout)
    assert data["judgments"]["models"] == {"judge": 30}
    for pair in data["pairs"]:
        assert (
            "settled by the judgments" not in pair["sentence"]
            or "model:judge" in (pair["sentence"])
        )


def test_with_model_is_refused_where_it_has_no_meaning(
    bug: HoledWorkspace, cli: Callable[..., Result]
) -> None:
    unknown = cli("score", "--workspace", bug.path, "--with-model", "nobody")
    assert unknown.exit_code != 0 and "no label of 'model:nobody'" in unknown.stderr
    assert "Traceback" not in unknown.output
    on_file = cli("score", bug.path.parent / "run.trec", "--qrels", bug.path.parent / "nist.qrels",
                  "--with-model", "judge")  # fmt: skip
    assert on_file.exit_code != 0 and "--with-model applies to --workspace only" in on_file.stderr
    notes = cli("export", bug.path, "notes", "--with-model", "judge")
    assert notes.exit_code != 0 and "qrels only" in notes.stderr
