"""Who a grade belongs to for agreement: a model's grade is the rater
model:NAME whoever recorded it, and of several recordings of one model's grade
of an item the latest alone counts; unsure and withdrawn are no grade."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judgepool.services.agreement import workspace_agreement
from judgepool.services.judging import judge, undo
from judgepool.services.qrels import import_qrels
from judgepool.services.undo import undo_last_grade
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.ratings import current_ratings


def ratings(ws: Workspace) -> list[tuple[str, str, str, int]]:
    found = current_ratings(ws)
    return sorted(zip(found.query_ids, found.doc_ids, found.raters, found.grades, strict=True))


def grade(ws: Workspace, doc: str, value: int | None, who: str, source: str = "human") -> None:
    judge(ws, "q1", doc, value, annotator=who, unsure=value is None, source=source, allow_new=True)


def test_model_grades_are_their_own_rater_and_the_latest_recording_wins(tmp_path: Path) -> None:
    (tmp_path / "gpt.qrels").write_text("q1 0 a 3\nq1 0 b 0\nq1 0 c 1\n")
    with init_workspace(tmp_path / "w.sqlite") as ws:
        grade(ws, "a", 1, "bob")
        import_qrels(ws, tmp_path / "gpt.qrels", source="model:gpt")  # annotator model:gpt
        grade(ws, "b", 2, "bob", "model:gpt")  # later than the import's 0: wins
        grade(ws, "c", 2, "carol", "model:gpt")
        grade(ws, "c", 3, "bob", "model:gpt")  # later than carol's recording: wins
        grade(ws, "d", None, "bob")  # unsure: no grade
        grade(ws, "e", 2, "carol")
        assert ratings(ws) == [
            ("q1", "a", "bob", 1),
            ("q1", "a", "model:gpt", 3),
            ("q1", "b", "model:gpt", 2),
            ("q1", "c", "model:gpt", 3),
            ("q1", "e", "carol", 2),
        ]
        report = workspace_agreement(ws, annotators=["bob", "carol", "model:gpt"])
        assert report.raters == ("bob", "carol", "model:gpt")
        pairs = {(p.a, p.b): p.items for p in report.overall.pairs}
        assert pairs == {("bob", "carol"): 0, ("bob", "model:gpt"): 1, ("carol", "model:gpt"): 0}
        # the command line's undo of bob's model grade on c brings back carol's recording
        taken, event = undo_last_grade(ws, "bob")
        assert (taken.doc_id, taken.unsure, event.grade) == ("d", True, None)
        taken, event = undo_last_grade(ws, "bob")
        assert (taken.doc_id, taken.grade, event.grade) == ("c", 3, None)
        assert ("q1", "c", "model:gpt", 2) in ratings(ws)


def test_an_undo_that_restores_a_model_grade_keeps_it_the_models(tmp_path: Path) -> None:
    with init_workspace(tmp_path / "w.sqlite") as ws:
        grade(ws, "a", 2, "bob", "model:gpt")
        grade(ws, "a", 0, "bob")  # bob overrides the model's label with his own
        assert ratings(ws) == [("q1", "a", "bob", 0)]
        taken, event = undo_last_grade(ws, "bob")
        assert (taken.grade, event.grade, event.source) == (0, 2, "model:gpt")
        assert ratings(ws) == [("q1", "a", "model:gpt", 2)]


def test_the_apps_undo_of_one_event_keeps_a_restored_model_grade_the_models(
    tmp_path: Path,
) -> None:
    with init_workspace(tmp_path / "w.sqlite") as ws:
        grade(ws, "a", 2, "bob", "model:gpt")
        zero = judge(ws, "q1", "a", 0, annotator="bob")
        one = judge(ws, "q1", "a", 1, annotator="bob")
        event = undo(ws, one.id, annotator="bob")  # the app undoes by event
        assert (event.grade, event.source) == (0, "human")
        event = undo(ws, zero.id, annotator="bob")  # then bob's own 0 before it
        assert (event.grade, event.source) == (2, "model:gpt")
        assert ratings(ws) == [("q1", "a", "model:gpt", 2)]


def test_the_matrix_has_one_column_per_item_graded_by_a_chosen_rater(tmp_path: Path) -> None:
    with init_workspace(tmp_path / "w.sqlite") as ws:
        for doc, a, b, c in (("x", 1, 1, None), ("y", 2, None, 3), ("z", None, None, 0)):
            for who, value in (("ann", a), ("ben", b), ("cat", c)):
                if value is not None:
                    grade(ws, doc, value, who)
        report = workspace_agreement(ws, annotators=["ann", "ben"], by_query=True)
        assert report.raters == ("ann", "ben")
        assert report.overall.overall.items == 1  # x: both graded; y only ann; z neither
        assert report.overall.pairs[0].raw_agreement.value == 1.0
        assert report.per_query is not None and [q for q, _ in report.per_query] == ["q1"]
        full = workspace_agreement(ws)
        assert full.overall.overall.items == 2 and full.overall.overall.fleiss_items == 0
        assert np.isclose(full.overall.pairs[1].items, 1)  # ann and cat share y


def rounded(value: object) -> object:
    """``value`` with every float rounded to 12 places: the readings sum in other orders."""
    if isinstance(value, float):
        return round(value, 12)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def test_the_coded_reading_gives_what_the_reading_by_ids_gives(tmp_path: Path) -> None:
    import random

    from judgepool.services.agreement import agreement_dict

    rng = random.Random(5)
    (tmp_path / "m.qrels").write_text(
        "".join(f"q{rng.randint(1, 3)} 0 doc{i} {rng.randint(-2, 3)}\n" for i in range(60))
    )
    with init_workspace(tmp_path / "w.sqlite", scale="-2..3") as ws:
        import_qrels(ws, tmp_path / "m.qrels", source="model:m")
        for _ in range(400):
            who = rng.choice(["ann", "ben", "cat", "dee"])
            doc = f"doc{rng.randint(0, 80)}"
            value = rng.choice([-2, -1, 0, 1, 2, 3, None])
            judge(ws, "q1", doc, value, annotator=who, unsure=value is None, allow_new=True)
        for chosen in (None, ["ann", "model:m"], ["dee", "cat", "ben"]):
            coded = workspace_agreement(ws, annotators=chosen)
            by_ids = workspace_agreement(ws, annotators=chosen, by_query=True)
            assert coded.per_query is None and by_ids.per_query is not None
            assert rounded(agreement_dict(coded.overall)) == rounded(agreement_dict(by_ids.overall))
        # a model grade under a person's name: the coded reading steps aside
        judge(ws, "q1", "doc1", 1, annotator="ann", source="model:m", allow_new=True)
        report = workspace_agreement(ws)
        assert report.raters == ("ann", "ben", "cat", "dee")  # the people
        assert [(found.rater, found.kind) for found in report.left_out.raters] == [
            ("model:m", "model")
        ]
