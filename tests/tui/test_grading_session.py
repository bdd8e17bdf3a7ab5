"""Navigation over a grading plan, without the app: order, next/previous across
queries, next unjudged (deferred documents last), progress counts, and the
return after a document sent from the audit is graded."""

from __future__ import annotations

from judgepool.core.terms.contract import Scale
from judgepool.services.app_queries import (
    GradingPlan,
    ItemJudgment,
    PlanQuery,
    order_for_grading,
)
from judgepool.tui.grading import GradingSession


def plan(judged: dict[tuple[str, str], ItemJudgment] | None = None) -> GradingPlan:
    return GradingPlan(
        queries=[
            PlanQuery("q1", "first", None, ["a", "b", "c"]),
            PlanQuery("q2", "second", "why", ["d", "e"]),
        ],
        judgments=dict(judged or {}),
        scale=Scale(0, 3),
        labels={0: "no", 1: "some", 2: "yes", 3: "perfect"},
    )


def graded(grade: int) -> ItemJudgment:
    return ItemJudgment(others_graded=True, others=(("bob", grade),))


def test_starts_at_the_first_unjudged_document() -> None:
    session = GradingSession(plan({("q1", "a"): graded(1), ("q1", "b"): graded(0)}))
    assert session.current == ("q1", "c")
    assert (session.total_judged, session.total) == (2, 5)
    assert session.query_progress() == (2, 3)


def test_steps_cross_query_boundaries_and_stop_at_the_ends() -> None:
    session = GradingSession(plan())
    assert session.step(-1) == ("q1", "a")
    assert [session.step(+1) for _ in range(5)] == [
        ("q1", "b"),
        ("q1", "c"),
        ("q2", "d"),
        ("q2", "e"),
        ("q2", "e"),
    ]
    assert session.step_query(-1) == ("q1", "a")
    assert session.step_query(-1) == ("q1", "a")


def test_next_unjudged_wraps_and_leaves_deferred_documents_for_last() -> None:
    session = GradingSession(plan())
    session.record("q1", "b", ItemJudgment(own_unsure=True, own_event=1))
    session.record("q2", "d", ItemJudgment(own_grade=2, own_event=2))
    assert session.next_unjudged() == ("q1", "c")
    assert session.next_unjudged() == ("q2", "e")
    assert session.next_unjudged() == ("q1", "a")
    for item in (("q1", "a"), ("q1", "c"), ("q2", "e")):
        session.record(*item, ItemJudgment(own_grade=0, own_event=3))
    assert session.next_unjudged() == ("q1", "b")  # only the deferred one is left
    session.record("q1", "b", ItemJudgment(own_grade=1, own_event=4))
    assert session.next_unjudged() is None
    assert (session.total_judged, session.total) == (5, 5)


def test_recording_counts_only_changes_of_judged() -> None:
    session = GradingSession(plan())
    session.record("q1", "a", ItemJudgment(own_grade=1, own_event=1))
    session.record("q1", "a", ItemJudgment(own_grade=3, own_event=2))
    assert session.total_judged == 1
    session.record("q1", "a", ItemJudgment(own_unsure=True, own_event=3))
    assert session.total_judged == 0


def test_a_document_from_the_audit_is_shown_then_grading_returns() -> None:
    session = GradingSession(plan())
    session.step(+1)
    assert session.current == ("q1", "b")
    session.show("q2", "z")  # not pooled: added to its query
    assert session.current == ("q2", "z")
    assert session.total == 6
    assert session.advance() == ("q1", "b")
    assert session.advance() == ("q1", "c")  # afterwards, plain next


def test_moving_on_after_a_queued_document_forgets_the_return() -> None:
    session = GradingSession(plan())
    session.show("q2", "d")
    session.forget_resume()
    assert session.advance() == ("q2", "e")


def test_order_for_grading_hides_the_doc_id_order() -> None:
    ids = [f"3-{rank}" for rank in range(20)]  # IDs that spell out the search rank
    ordered = order_for_grading("3", ids, {})
    assert sorted(ordered) == sorted(ids)
    assert ordered != sorted(ids)
    assert ordered == order_for_grading("3", reversed(ids), {})  # deterministic
    judged = {("3", "3-5"): graded(2)}
    assert order_for_grading("3", ids, judged)[-1] == "3-5"  # judged ones last
