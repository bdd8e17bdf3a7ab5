"""The grade screen's parts on their own, without the app: the holes sent from
the audit (`HoleQueue`) and going to a query (`GotoQuery`), and what each
says on the status line."""

from __future__ import annotations

from judgepool.core.terms.contract import Scale
from judgepool.services.app_queries import GradingPlan, ItemJudgment, PlanQuery
from judgepool.services.text_parts import whole_text
from judgepool.tui.grading import GradingSession
from judgepool.tui.screens.grade.goto import GotoQuery
from judgepool.tui.screens.grade.holes import ALL_JUDGED, HoleQueue


def test_the_next_hole_is_the_first_queued_one_not_judged() -> None:
    queue = HoleQueue()
    holes = [("q1", "a"), ("q1", "b"), ("q2", "c"), ("q2", "d")]
    assert queue.send(holes) == (
        ("sent here for grading: ", "bold"),
        ("a", ""),
        (" · 4 holes left to judge", "dim"),
    )
    assert queue.after(("q9", "z"), lambda _: False) is None  # not a queued hole
    assert queue.holes == tuple(holes)
    judged = {("q1", "b")}  # graded meanwhile, elsewhere
    after = queue.after(("q1", "a"), lambda hole: hole in judged)
    assert after is not None and after.next == ("q2", "c")
    assert after.words == (("next hole: ", "bold"), ("c", ""), (" · 2 holes left to judge", "dim"))
    after = queue.after(("q2", "c"), lambda hole: hole in judged)
    assert after is not None and after.words[-1] == (" · 1 hole left to judge", "dim")
    after = queue.after(("q2", "d"), lambda hole: hole in judged)
    assert after is not None and (after.next, after.words) == (None, (ALL_JUDGED,))
    assert queue.holes == ()


def session() -> GradingSession:
    queries = [
        PlanQuery("q1", whole_text("coffee brewing"), None, ["a", "b"]),
        PlanQuery("q2", whole_text("tea leaves"), None, ["c"]),
        PlanQuery("q3", whole_text("coffee beans"), None, ["d"]),
    ]
    judgments = {("q1", "a"): ItemJudgment(others_graded=True, others=(("bob", 1),))}
    return GradingSession(GradingPlan(queries, judgments, Scale(0, 3), {}))


def test_goto_finds_an_id_or_words_after_the_current_query_and_remembers_them() -> None:
    grading = session()
    goto = GotoQuery()
    assert goto.go(grading, "Q2") is None and grading.current == ("q2", "c")
    assert goto.go(grading, "coffee") is None and grading.current == ("q3", "d")
    assert goto.go(grading, "coffee") is None and grading.current == ("q1", "b")
    assert goto.go(grading, "milk") == (
        ("no query of your queue has the ID or the words ", "yellow"),
        ("milk", ""),
    )
    assert grading.current == ("q1", "b")  # it stays
    assert goto.last == "milk"  # offered again in the dialog
