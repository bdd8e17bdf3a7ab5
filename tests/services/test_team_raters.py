"""Agreement, the disagreements and the adjudication queue compare the people
who graded: imported qrels (under import:FILE or a name of their own) and a
model's labels only when named, adjudications never; each says what it left
out. On real workspace files."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.services.adjudication import adjudicate, adjudication_queue
from judgepool.services.agreement import workspace_agreement
from judgepool.services.disagreements import list_disagreements
from judgepool.services.judging import judge
from judgepool.services.qrels import import_qrels
from judgepool.services.roles import set_role
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.ratings import coded_ratings, current_ratings

ALICE = {"d1": 1, "d2": 2, "d3": 3, "d4": 0}
BOB = {"d1": 1, "d2": 1, "d3": 3, "d4": 2}


def team(tmp_path: Path) -> Workspace:
    """alice and bob grade d1..d4 (they differ on d2 and d4); nist.qrels is
    imported (it differs from both on d1), a model labels d1 and d3, and
    carol, an adjudicator, settles d2."""
    ws = init_workspace(tmp_path / "team.sqlite")
    for who, grades in (("alice", ALICE), ("bob", BOB)):
        for doc, grade in grades.items():
            judge(ws, "q1", doc, grade, annotator=who, allow_new=True)
    (tmp_path / "nist.qrels").write_text("q1 0 d1 3\nq1 0 d2 2\nq1 0 d5 1\n")
    import_qrels(ws, tmp_path / "nist.qrels")
    (tmp_path / "gpt.qrels").write_text("q1 0 d1 0\nq1 0 d3 0\n")
    import_qrels(ws, tmp_path / "gpt.qrels", source="model:gpt")
    set_role(ws, "carol", "adjudicator")
    adjudicate(ws, "q1", "d2", 2, adjudicator="carol")
    return ws


def test_agreement_compares_the_people_and_says_what_it_left_out(tmp_path: Path) -> None:
    with team(tmp_path) as ws:
        for by_query in (False, True):  # the coded reading and the one by IDs
            report = workspace_agreement(ws, by_query=by_query)
            assert report.raters == ("alice", "bob")
            (pair,) = report.overall.pairs
            assert pair.items == 4 and pair.raw_agreement.value == 0.5
            assert [(f.rater, f.kind, f.items) for f in report.left_out.raters] == [
                ("import:nist.qrels", "import", 3),
                ("model:gpt", "model", 2),
            ]
            assert report.left_out.adjudications == 1
            assert report.left_out.line() == (
                "left out: import:nist.qrels (imported judgments, 3 items), model:gpt "
                "(a model's labels, 2 items), 1 adjudication (not annotations); name an "
                "import or a model in --annotators to compare it"
            )
        named = workspace_agreement(ws, annotators=["alice", "import:nist.qrels"])
        assert named.raters == ("alice", "import:nist.qrels")
        assert named.overall.pairs[0].items == 2  # d1 and d2
        assert [f.rater for f in named.left_out.raters] == ["model:gpt", "bob"]
        assert named.left_out.raters[1].reason == "not in --annotators"


def test_an_import_under_a_name_of_its_own_is_still_an_import(tmp_path: Path) -> None:
    (tmp_path / "dl19.qrels").write_text("q1 0 d1 3\nq1 0 d2 0\n")
    with team(tmp_path) as ws:
        # as the demo imports its qrels: under the annotator qrels:dl19
        import_qrels(ws, tmp_path / "dl19.qrels", annotator="qrels:dl19")
        report = workspace_agreement(ws)
        assert report.raters == ("alice", "bob")
        assert ("qrels:dl19", "import", 2) in [
            (f.rater, f.kind, f.items) for f in report.left_out.raters
        ]
        coded = coded_ratings(ws)
        assert coded is not None
        assert dict(zip(coded.raters, coded.kinds, strict=True)) == current_ratings(ws).kinds


def test_an_annotator_who_imports_and_grades_is_two_raters(tmp_path: Path) -> None:
    (tmp_path / "mine.qrels").write_text("q1 0 d6 2\n")
    with team(tmp_path) as ws:
        import_qrels(ws, tmp_path / "mine.qrels", annotator="alice")  # her offline grades
        assert coded_ratings(ws) is None  # the reading by rows tells them apart
        found = current_ratings(ws)
        rows = set(zip(found.doc_ids, found.raters, found.grades, strict=True))
        assert ("d6", "import:mine.qrels", 2) in rows and ("d6", "alice", 2) not in rows
        assert found.kinds["alice"] == "person" and found.kinds["import:mine.qrels"] == "import"
        report = workspace_agreement(ws)
        assert report.raters == ("alice", "bob") and report.overall.pairs[0].items == 4


def test_too_few_people_is_refused_saying_what_was_left_out(tmp_path: Path) -> None:
    (tmp_path / "nist.qrels").write_text("q1 0 d1 3\n")
    with init_workspace(tmp_path / "solo.sqlite") as ws:
        judge(ws, "q1", "d1", 1, annotator="alice", allow_new=True)
        import_qrels(ws, tmp_path / "nist.qrels")
        with pytest.raises(InputError) as refused:
            workspace_agreement(ws)
        message = str(refused.value)
        assert "compared (the people who graded): 'alice'" in message
        assert "left out: 'import:nist.qrels' (imported judgments, 1 item)" in message
        assert workspace_agreement(ws, annotators=["alice", "import:nist.qrels"]).raters == (
            "alice",
            "import:nist.qrels",
        )


def test_disagreements_are_those_of_the_compared_raters(tmp_path: Path) -> None:
    with team(tmp_path) as ws:
        # d1: alice and bob agree (1); only the import and the model differ
        listing = list_disagreements(ws)
        assert listing.raters == ("alice", "bob")
        assert [(f.item.doc_id, f.resolved, f.gap) for f in listing.listed] == [
            ("d4", False, 2),
            ("d2", True, 1),
        ]
        assert (listing.total, listing.unresolved) == (2, 1)
        assert [f.rater for f in listing.left_out.raters] == ["import:nist.qrels", "model:gpt"]
        assert listing.left_out.adjudications is None  # they settle items here

        named = list_disagreements(ws, annotators=["alice", "import:nist.qrels"])
        # d1: alice 1, nist 3; the adjudicated rule keeps alice's grade, but no
        # adjudicator settled it: unresolved
        assert [(f.item.doc_id, f.resolved, f.compared) for f in named.listed] == [
            ("d1", False, (("alice", 1), ("import:nist.qrels", 3)))
        ]
        assert named.listed[0].item.adjudicated == 1
        assert [f.item.doc_id for f in list_disagreements(ws, min_gap=2).listed] == ["d4"]


def test_the_adjudication_queue_lists_the_peoples_disagreements(tmp_path: Path) -> None:
    with team(tmp_path) as ws:
        assert [f.item.doc_id for f in adjudication_queue(ws).listed] == ["d4"]
        queue = adjudication_queue(ws, with_resolved=True)
        assert [f.item.doc_id for f in queue.listed] == ["d4", "d2"]
        assert (queue.total, queue.unresolved) == (2, 1)
