"""``agreement --confusion model:NAME`` sets the model against people where a
person graded the item, else against imported qrels (NIST's, say), and says
which on how many items, in the table and in JSON; ``--against`` narrows the
reference to one of them. The real command on a real workspace file, the
model's labels recorded as ``prelabel`` records them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from judgepool.services.judging import judge
from judgepool.services.workspace import open_workspace
from judgepool.store.model_replies import ModelReply, record_reply

MODEL = "model:judge"
# the imported qrels: five items, the first one alice graded too
NIST = {("q1", "d1"): 2, ("q1", "d2"): 0, ("q1", "d3"): 1, ("q2", "d4"): 3, ("q2", "d5"): 0}
# alice: one item the qrels hold (her grade is the reference there), one they do not
ALICE = {("q1", "d1"): 3, ("q2", "d6"): 1}
# the model: every item but q2 d5, which it never labelled
LABELS = {("q1", "d1"): 2, ("q1", "d2"): 1, ("q1", "d3"): 1, ("q2", "d4"): 2, ("q2", "d6"): 1}


def _workspace(tmp_path: Path, cli: Callable[..., Result], importer: str | None) -> Path:
    """The qrels imported (as import:nist.qrels, or under ``importer``'s own
    name), alice's grades, the model's labels."""
    path = tmp_path / "ws.sqlite"
    assert cli("init", path, "--scale", "0..3").exit_code == 0
    (tmp_path / "queries.tsv").write_text("q1\tgreen tea\nq2\tblack tea\n", encoding="utf-8")
    docs = "".join(f"d{n}\ttext {n}\n" for n in range(1, 7))
    (tmp_path / "docs.tsv").write_text(docs, encoding="utf-8")
    assert cli("import", path, "queries", tmp_path / "queries.tsv").exit_code == 0
    assert cli("import", path, "docs", tmp_path / "docs.tsv").exit_code == 0
    qrels = tmp_path / "nist.qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in NIST.items()))
    named = () if importer is None else ("--annotator", importer)
    done = cli("import", path, "qrels", qrels, *named)
    assert done.exit_code == 0, done.output
    with open_workspace(path) as ws:
        for (query_id, doc_id), grade in ALICE.items():
            judge(ws, query_id, doc_id, grade, annotator="alice")
        for (query_id, doc_id), grade in LABELS.items():
            reply = f'{{"grade": {grade}}}'
            record_reply(ws, MODEL, ModelReply(query_id, doc_id, grade, reply, "d" * 64))
    return path


def _json(cli: Callable[..., Result], path: Path, *more: str) -> dict[str, object]:
    done = cli("agreement", path, "--confusion", MODEL, "--format", "json", *more)
    assert done.exit_code == 0, done.output
    (table,) = json.loads(done.stdout)["confusion"]
    assert isinstance(table, dict)
    return table


@pytest.mark.parametrize("importer", [None, "nist"])
def test_people_where_they_graded_else_the_imports(
    tmp_path: Path, cli: Callable[..., Result], importer: str | None
) -> None:
    path = _workspace(tmp_path, cli, importer)
    source = importer or "import:nist.qrels"
    table = _json(cli, path)
    # alice on q1 d1 (over the qrels' 2) and q2 d6; the qrels on q1 d2, q1 d3, q2 d4
    assert table["against"] == "both"
    assert table["reference"] == {"people": 2, "imports": 3}
    assert table["people"] == ["alice"] and table["imports"] == [source]
    assert (table["items"], table["pairs"]) == (5, 5)
    # rows: the reference's grade; columns: the model's
    assert table["counts"] == [[0, 1, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0]]

    text = cli("agreement", path, "--confusion", MODEL)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert lines[0] == (
        f"{MODEL} in {path}: against people on 2 items (2 pairs, one per person; people: "
        f"alice), against imports on 3 items where no person graded (3 pairs, one per import; "
        f"imports: {source})"
    )
    assert lines[2].split()[:2] == ["reference", "model"]
    assert lines[6].split() == ["3", "0", "0", "2", "(1.00)", "0", "2"]
    assert lines[-1] == (
        f"{MODEL} vs people on 2 items and imports ({source}) on 3 items where no person "
        "graded (5 pairs): same grade 0.40, too generous 0.20, too strict 0.40; most generous "
        "on grade 0 (1.00 higher), most strict on grade 3 (1.00 lower)"
    )


def test_against_narrows_the_reference(tmp_path: Path, cli: Callable[..., Result]) -> None:
    path = _workspace(tmp_path, cli, None)
    people = _json(cli, path, "--against", "people")
    assert people["reference"] == {"people": 2, "imports": 0} and people["imports"] == []
    assert people["counts"] == [[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]]
    # the imports on every item they hold that the model labelled, alice's q1 d1 too
    imports = _json(cli, path, "--against", "imports")
    assert imports["reference"] == {"people": 0, "imports": 4} and imports["people"] == []
    assert imports["counts"] == [[0, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0]]

    text = cli("agreement", path, "--confusion", MODEL, "--against", "imports").stdout
    lines = text.splitlines()
    assert lines[0] == (
        f"{MODEL} vs imports in {path}: 4 items graded by both (4 pairs, one per import; "
        "imports: import:nist.qrels)"
    )
    assert lines[2].split()[:2] == ["import", "model"]
    assert lines[-1].startswith(f"{MODEL} vs imports (import:nist.qrels) on 4 items (4 pairs)")
    people_line = cli("agreement", path, "--confusion", MODEL, "--against", "people").stdout
    assert people_line.splitlines()[-1].startswith(f"{MODEL} vs people on 2 items (2 pairs)")


def test_against_goes_with_confusion(tmp_path: Path, cli: Callable[..., Result]) -> None:
    path = _workspace(tmp_path, cli, None)
    done = cli("agreement", path, "--against", "imports")
    assert done.exit_code == 2
    assert "--against goes with --confusion model:NAME" in done.stderr
