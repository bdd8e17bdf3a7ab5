"""The ledger: every event kept in order with its annotator and previous grade,
each item's current grades read as the consensus rules take them, the rules
applied to a workspace (the rules alone: tests/core/test_consensus.py),
disagreements, and the qrels digest."""

from __future__ import annotations

import contextlib
import functools
import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.team.consensus import HeldGrade, ItemGrades
from judgepool.core.terms.errors import InputError, PolicyError
from judgepool.formats.trec import qrels_digest, read_qrels
from judgepool.services.adjudication import adjudicate, settled_items
from judgepool.services.consensus import disagreements, workspace_consensus, workspace_judgments
from judgepool.services.judging import judge as judge_held
from judgepool.services.judging import set_adjudicators, undo
from judgepool.services.qrels import export_qrels
from judgepool.services.roles import set_role
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.ledger import append_event, current_judgments, item_grades, list_events
from judgepool.store.ledger_undo import undo_latest

# These tests judge items made up on the spot, in workspaces holding nothing else.
judge = functools.partial(judge_held, allow_new=True)


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with init_workspace(tmp_path / "w.sqlite") as workspace:
        yield workspace


def test_every_event_is_kept_in_order_with_annotator_and_previous_grade(ws: Workspace) -> None:
    judge(ws, "q1", "d1", 1, annotator="alice")
    judge(ws, "q1", "d1", 0, annotator="bob")
    judge(ws, "q1", "d1", 3, annotator="alice", note="on second reading", seconds=12.5)
    judge(ws, "q1", "d1", None, unsure=True, annotator="alice")
    judge(ws, "q1", "d1", 2, annotator="alice")
    judge(ws, "q1", "d1", 2, annotator="alice")
    events = list_events(ws)
    assert [(e.annotator, e.grade, e.unsure, e.previous_grade) for e in events] == [
        ("alice", 1, False, None),
        ("bob", 0, False, None),
        ("alice", 3, False, 1),
        ("alice", None, True, 3),
        ("alice", 2, False, None),  # the state before was unsure: no grade
        ("alice", 2, False, 2),
    ]
    assert [e.id for e in events] == sorted(e.id for e in events)
    assert events[2].note == "on second reading"
    assert events[2].seconds == 12.5
    assert events[2].previous_event == events[0].id
    assert events[4].previous_event == events[3].id
    assert {e.source for e in events} == {"human"}
    assert all(e.created_at.endswith("Z") for e in events)


def _replay(ws: Workspace) -> dict[tuple[str, str, str], tuple[int | None, bool]]:
    state: dict[tuple[str, str, str], tuple[int | None, bool]] = {}
    for e in list_events(ws):
        key = (e.query_id, e.doc_id, e.annotator)
        if e.grade is None and not e.unsure:
            state.pop(key, None)
        else:
            state[key] = (e.grade, e.unsure)
    return state


def test_current_judgments_are_the_replay_of_the_ledger(ws: Workspace) -> None:
    rng = random.Random(7)
    made = []
    for _ in range(300):
        annotator = rng.choice(["alice", "bob", "carol"])
        q, d = rng.choice(["q1", "q2"]), rng.choice(["d1", "d2", "d3"])
        if made and rng.random() < 0.15:
            last = made.pop()
            with contextlib.suppress(InputError):  # refused when a later event exists
                undo(ws, last.id, annotator=last.annotator)
            continue
        if rng.random() < 0.1:
            made.append(judge(ws, q, d, None, unsure=True, annotator=annotator))
        else:
            made.append(judge(ws, q, d, rng.randint(0, 3), annotator=annotator))
    current = {
        (c.query_id, c.doc_id, c.annotator): (c.grade, c.unsure) for c in current_judgments(ws)
    }
    assert current == _replay(ws)


def test_item_grades_reads_each_current_grade_as_the_rules_take_it(ws: Workspace) -> None:
    first = judge(ws, "q1", "d1", 2, annotator="alice")
    again = judge(ws, "q1", "d1", 1, annotator="alice")
    undo(ws, again.id, annotator="alice")  # alice's 2 is back, dated from when she gave it
    with ws.write() as conn:
        imported = append_event(
            conn, query_id="q1", doc_id="d1", grade=3, unsure=False,
            annotator="import:nist.qrels", source="import:nist.qrels",
        )  # fmt: skip
        settled_only = append_event(
            conn, query_id="q2", doc_id="d5", grade=0, unsure=False,
            annotator="judy", source="human", adjudicates=True,
        )  # fmt: skip
    modelled = judge(ws, "q1", "d1", 0, annotator="bob", source="model:x")
    judge(ws, "q1", "d1", None, unsure=True, annotator="carol")  # unsure: no grade
    judge(ws, "q1", "d2", None, unsure=True, annotator="carol")  # nothing to resolve
    set_role(ws, "judy", "adjudicator")
    settled = adjudicate(ws, "q1", "d1", 1, adjudicator="judy")
    items = item_grades(ws)
    assert [(found.query_id, found.doc_id) for found in items] == [("q1", "d1"), ("q2", "d5")]
    assert items[0].ordered == (
        HeldGrade("alice", 2, first.id, "human"),
        HeldGrade("import:nist.qrels", 3, imported, "import:nist.qrels"),
        HeldGrade("bob", 0, modelled.id, "model:x"),
    )
    assert items[0].adjudications == (HeldGrade("judy", 1, settled.id),)
    assert items[1] == ItemGrades("q2", "d5", (), (HeldGrade("judy", 0, settled_only),))


def test_unsure_is_never_a_grade(ws: Workspace) -> None:
    judge(ws, "q1", "d1", None, unsure=True, annotator="alice")
    judge(ws, "q1", "d2", 2, annotator="alice")
    judge(ws, "q1", "d2", None, unsure=True, annotator="alice")  # deferring takes the grade back
    judge(ws, "q1", "d3", 2, annotator="alice")
    judge(ws, "q1", "d3", None, unsure=True, annotator="bob")  # bob's doubt leaves alice's grade
    for rule in ("latest", "median", "adjudicated"):
        assert workspace_judgments(ws, rule)[0] == {"q1": {"d3": 2}}
    assert disagreements(ws) == []


def test_consensus_rules(ws: Workspace) -> None:
    judge(ws, "q1", "solo", 2, annotator="alice")
    for annotator in ("alice", "bob"):
        judge(ws, "q1", "agreed", 1, annotator=annotator)
    # even count: alice 3 then bob 0 -> latest 0, median (low) 0
    judge(ws, "q1", "pair", 3, annotator="alice")
    judge(ws, "q1", "pair", 0, annotator="bob")
    # odd count: 3, 1, 2 given in that order -> latest 2, median 2
    judge(ws, "q1", "trio", 3, annotator="alice")
    judge(ws, "q1", "trio", 1, annotator="bob")
    judge(ws, "q1", "trio", 2, annotator="carol")
    # adjudicated: judy, an adjudicator, settles "trio"; "pair" stays unresolved
    set_role(ws, "judy", "adjudicator")
    settled = adjudicate(ws, "q1", "trio", 1, adjudicator="judy")

    # an adjudication is not an annotation: latest and median read the annotations
    latest = workspace_consensus(ws, "latest")
    assert latest.judgments == {"q1": {"solo": 2, "agreed": 1, "pair": 0, "trio": 2}}
    median = workspace_consensus(ws, "median")
    assert median.judgments == {"q1": {"solo": 2, "agreed": 1, "pair": 0, "trio": 2}}
    adjudicated = workspace_consensus(ws, "adjudicated")
    assert adjudicated.judgments == {"q1": {"solo": 2, "agreed": 1, "trio": 1}}
    assert [(u.query_id, u.doc_id) for u in adjudicated.unresolved] == [("q1", "pair")]
    assert latest.unresolved == () and median.unresolved == ()
    assert adjudicated.rule == "adjudicated"

    items = {d.doc_id: d for d in disagreements(ws)}
    assert set(items) == {"pair", "trio"}
    trio = items["trio"]
    assert trio.grades == (("alice", 3), ("bob", 1), ("carol", 2))
    assert (trio.latest, trio.median, trio.adjudicated) == (2, 2, 1)
    assert trio.adjudicators == ("judy",)
    assert (items["pair"].latest, items["pair"].median, items["pair"].adjudicated) == (0, 0, None)

    # judy's adjudication taken back: trio is unresolved again
    undo(ws, settled.id, annotator="judy")
    assert workspace_judgments(ws, "median")[0]["q1"]["trio"] == 2
    assert "trio" not in workspace_judgments(ws, "adjudicated")[0]["q1"]


def test_an_adjudicator_grading_as_an_annotator_is_not_adjudicating(ws: Workspace) -> None:
    # carol is an adjudicator who also grades her own queue: that grade is an
    # annotation (agreement counts it), and settles nothing
    set_role(ws, "carol", "adjudicator")
    judge(ws, "q1", "d1", 3, annotator="alice")
    judge(ws, "q1", "d1", 1, annotator="carol")
    adjudicated = workspace_consensus(ws, "adjudicated")
    assert adjudicated.judgments == {}
    assert [(u.query_id, u.doc_id) for u in adjudicated.unresolved] == [("q1", "d1")]
    adjudicate(ws, "q1", "d1", 2, adjudicator="carol")
    assert workspace_judgments(ws, "adjudicated")[0] == {"q1": {"d1": 2}}
    # her annotation is still hers, unchanged by the adjudication
    assert {(c.annotator, c.grade) for c in current_judgments(ws)} == {("alice", 3), ("carol", 1)}


def test_settled_items_of_one_adjudicator_and_the_adjudication_that_stands(
    ws: Workspace,
) -> None:
    for doc_id in ("d1", "d2"):
        judge(ws, "q1", doc_id, 3, annotator="alice")
        judge(ws, "q1", doc_id, 0, annotator="bob")
    set_role(ws, "judy", "adjudicator")
    set_role(ws, "lead", "lead")
    adjudicate(ws, "q1", "d2", 2, adjudicator="judy")
    adjudicate(ws, "q1", "d1", 1, adjudicator="judy")
    adjudicate(ws, "q1", "d1", 3, adjudicator="lead")
    assert settled_items(ws, "judy") == {("q1", "d2"): 2, ("q1", "d1"): 1}
    assert list(settled_items(ws, "judy")) == [("q1", "d2"), ("q1", "d1")]  # as settled
    assert settled_items(ws, "lead") == {("q1", "d1"): 3}
    # anyone's: the latest adjudication of each item, which the adjudicated rule takes
    assert settled_items(ws) == {("q1", "d1"): 3, ("q1", "d2"): 2}
    assert workspace_judgments(ws, "adjudicated")[0] == {"q1": {"d1": 3, "d2": 2}}


def test_only_adjudicators_and_leads_adjudicate(ws: Workspace) -> None:
    judge(ws, "q1", "d1", 3, annotator="alice")
    set_role(ws, "bob", "annotator")
    with pytest.raises(PolicyError, match="not an adjudicator"):
        adjudicate(ws, "q1", "d1", 2, adjudicator="bob")
    set_role(ws, "lead", "lead")
    assert adjudicate(ws, "q1", "d1", 2, adjudicator="lead").adjudicates


def test_under_adjudicated_people_stand_over_an_import(ws: Workspace) -> None:
    # an imported grade is not a person's: where one person graded the item
    # differently, the person's grade stands without an adjudication
    with ws.write() as conn:
        append_event(
            conn, query_id="q1", doc_id="d1", grade=3, unsure=False,
            annotator="import:nist.qrels", source="import:nist.qrels",
        )  # fmt: skip
    judge(ws, "q1", "d1", 1, annotator="alice")
    assert workspace_judgments(ws, "adjudicated")[0] == {"q1": {"d1": 1}}
    assert workspace_judgments(ws, "median")[0] == {"q1": {"d1": 1}}  # low median of 3, 1
    judge(ws, "q1", "d2", 3, annotator="m", source="model:x")
    judge(ws, "q1", "d2", 2, annotator="n", source="model:y")
    # only models labelled d2: a hole under every rule, unless one model is counted
    for rule in ("adjudicated", "latest", "median"):
        assert "d2" not in workspace_judgments(ws, rule)[0]["q1"]
        assert workspace_judgments(ws, rule, with_model="x")[0]["q1"]["d2"] == 3
        assert workspace_judgments(ws, rule, with_model="model:y")[0]["q1"]["d2"] == 2
    # a model counted never moves a person's or an import's grade
    assert workspace_judgments(ws, "latest", with_model="x")[0]["q1"]["d1"] == 1


def test_undo_restores_a_state_not_a_place_in_time(ws: Workspace) -> None:
    # a grades 1 then 2; b grades 3; a's undo brings back a's 1, which was
    # given before b's 3: under latest the item stays 3
    judge(ws, "q1", "d1", 1, annotator="a")
    second = judge(ws, "q1", "d1", 2, annotator="a")
    judge(ws, "q1", "d1", 3, annotator="b")
    assert workspace_judgments(ws, "latest")[0] == {"q1": {"d1": 3}}
    undo(ws, second.id, annotator="a")
    assert {(c.annotator, c.grade) for c in current_judgments(ws)} == {("a", 1), ("b", 3)}
    assert workspace_judgments(ws, "latest")[0] == {"q1": {"d1": 3}}
    # and the CLI's undo of the latest grade does the same
    third = judge(ws, "q1", "d1", 0, annotator="a")
    assert workspace_judgments(ws, "latest")[0] == {"q1": {"d1": 0}}
    assert undo_latest(ws, "a") is not None
    assert workspace_judgments(ws, "latest")[0] == {"q1": {"d1": 3}}
    # undoing the undo brings a's 0 back, dated from when it was given (after b's)
    undo(ws, list_events(ws, annotator="a")[-1].id, annotator="a")
    assert third.id and workspace_judgments(ws, "latest")[0] == {"q1": {"d1": 0}}


def test_unknown_rule_is_refused(ws: Workspace) -> None:
    with pytest.raises(InputError, match="unknown consensus rule"):
        workspace_judgments(ws, "majority")


def test_digest_changes_when_and_only_when_the_universe_changes(ws: Workspace) -> None:
    def digest() -> str:
        return workspace_judgments(ws, "latest")[1]

    empty = digest()
    assert empty == qrels_digest({})
    judge(ws, "q1", "d1", 2, annotator="alice")
    one = digest()
    assert one != empty
    judge(ws, "q1", "d1", 2, annotator="alice", note="same grade again")
    assert digest() == one  # re-grading with the same grade
    judge(ws, "q1", "d2", None, unsure=True, annotator="alice")
    assert digest() == one  # unsure adds nothing to the universe
    judge(ws, "q1", "d1", 2, annotator="bob")
    assert digest() == one  # a second annotator agreeing
    changed = judge(ws, "q1", "d1", 1, annotator="alice")
    assert digest() != one  # a grade changed
    undo(ws, changed.id, annotator="alice")
    assert digest() == one  # and changed back: the same universe, the same digest
    judge(ws, "q2", "d1", 0, annotator="alice")
    assert digest() != one  # a new judged item (grade 0 counts: it is judged)


def test_exported_qrels_read_back_have_the_workspace_digest(ws: Workspace, tmp_path: Path) -> None:
    rng = random.Random(3)
    for q in range(5):
        for d in range(8):
            for annotator in ("alice", "bob"):
                if rng.random() < 0.7:
                    judge(ws, f"q{q}", f"doc-{d}", rng.randint(0, 3), annotator=annotator)
    set_adjudicators(ws, grant=["bob"])
    for rule in ("latest", "median", "adjudicated"):
        judgments, digest = workspace_judgments(ws, rule)
        target = tmp_path / f"{rule}.qrels"
        with open(target, "w") as handle:
            result = export_qrels(ws, handle, rule=rule)
        read = read_qrels(target, ws.scale)
        assert read.judgments == judgments
        assert read.digest == digest == result.digest
    buffer = io.StringIO()
    export_qrels(ws, buffer, annotator="alice")
    alice = {(c.query_id, c.doc_id): c.grade for c in current_judgments(ws, annotator="alice")}
    lines = buffer.getvalue().splitlines()
    assert len(lines) == len(alice)
    for line in lines:
        q, zero, d, g = line.split(" ")
        assert zero == "0" and alice[(q, d)] == int(g)
    with pytest.raises(InputError, match="no annotator"):
        export_qrels(ws, io.StringIO(), annotator="nobody")
