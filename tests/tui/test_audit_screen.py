"""The audit screen, driven with the Pilot on a real workspace file.

The findings on screen are the audit report's; "judge the holes" goes from an
unjudged document on the audit screen through the app's grade screen (a digit
key) and back, and the run's coverage and score move.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList

from judgepool.services.consensus import workspace_judgments
from judgepool.services.workspace import open_workspace
from judgepool.tui.screens.audit import AuditScreen
from judgepool.tui.screens.grade import GradeScreen
from judgepool.tui.widgets.audit_findings import AuditQueryTable, HoleTable
from tests.tui.pilot_support import screen_text
from tests.tui.review_support import (
    build_review_workspace,
    review_app,
    settle,
)

SIZE = (150, 45)


async def open_audit(pilot: Pilot[Any]) -> AuditScreen:
    await pilot.press("a")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AuditScreen)
    return screen


def column(table: DataTable[Text], key: str) -> list[str]:
    index = [str(c.key.value) for c in table.ordered_columns].index(key)
    return [table.get_row_at(row)[index].plain for row in range(table.row_count)]


async def test_every_finding_of_the_run_worst_query_first(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(pilot)
        runs = screen.query_one("#audit-runs", OptionList)
        assert runs.option_count == 2
        assert screen.run == "alpha"
        audit = screen.audit
        assert audit is not None
        findings = audit.report.findings
        assert [(h.query_id, h.doc_id, h.rank) for h in findings.unjudged] == [
            ("q1", "[bold]X", 3),
            ("q2", "Y", 3),
        ]
        assert findings.unknown_queries == ("q5",)
        assert findings.missing_queries == ("q4",)
        assert findings.zero_idcg_queries == ("q3",)
        assert [t.query_id for t in findings.ties] == ["q3"]
        table = screen.query_one(AuditQueryTable)
        # lowest judged@k first: the unknown query (nothing judged), q2 (2 of
        # 3), q1 (3 of 4); then q3 (fully judged, three kinds of findings) and
        # the skipped q4 (nothing to judge, one finding)
        assert column(table, "query") == ["q5", "q2", "q1", "q3", "q4"]
        # what each query's score stands on (the help lists the meanings)
        assert column(table, "status") == ["no qrels", "holes", "holes", "complete", "not run"]
        assert column(table, "judged") == ["0.0000", "0.6667", "0.7500", "1.0000", "-"]
        assert column(table, "holes") == ["1", "1", "1", "0", "0"]
        # the run's coverage is the mean over its judged queries
        judged = [q.judged_at_k for q in audit.queries if q.status == "judged"]
        assert sum(j or 0 for j in judged) / len(judged) == pytest.approx(
            audit.report.coverage.judged_at_k
        )
        text = screen_text(app)
        for part in (
            "judged@10 0.8056",
            "unjudged in top 10: 2",
            "unknown_queries 1",
            "missing_queries 1",
            "ties 1",
            "short_lists 4",
            "zero_idcg_queries 1",
            "refused by the contract",  # the default contract rejects unjudged documents
        ):
            assert part in text, part
        # q1's hole has an ID that looks like markup: it shows as typed
        table.focus()
        table.move_cursor(row=2)
        await pilot.pause()
        holes = screen.query_one(HoleTable)
        assert holes.current_hole == ("q1", "[bold]X")
        assert "[bold]X" in screen_text(app)
        # the other run is fully judged
        runs.focus()
        await pilot.press("down")
        await settle(pilot)
        assert screen.run == "beta"
        assert screen.audit is not None and screen.audit.report.coverage.unjudged_at_k == 0


async def test_judge_the_holes_moves_coverage_and_score(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        screen = await open_audit(pilot)
        before = screen.audit
        assert before is not None and before.score.evaluation is not None
        assert before.report.coverage.unjudged_at_k == 2
        ndcg_before = before.score.evaluation.summary.ndcg
        # to q1, enter moves to its holes, j sends the highlighted one to grading
        table = screen.query_one(AuditQueryTable)
        table.focus()
        table.move_cursor(row=2)
        await pilot.press("enter")
        assert screen.focused is screen.query_one(HoleTable)
        await pilot.press("j")
        await settle(pilot)
        assert app.screen is not screen  # the grade screen, showing that document
        assert "[bold]X" in screen_text(app)
        await pilot.press("3")
        await settle(pilot)
        with open_workspace(workspace) as ws:
            judgments, _ = workspace_judgments(ws)
        assert judgments["q1"]["[bold]X"] == 3
        await pilot.press("a")
        await settle(pilot)
        assert app.screen is screen
        after = screen.audit
        assert after is not None and after.score.evaluation is not None
        assert after.report.coverage.unjudged_at_k == 1
        assert after.report.coverage.judged_at_k is not None
        assert after.report.coverage.judged_at_k > before.report.coverage.judged_at_k  # type: ignore[operator]
        assert after.score.evaluation.summary.ndcg != ndcg_before
        assert after.query("q1").judged_at_k == 1.0
        assert "unjudged in top 10: 1" in screen_text(app)


async def test_next_hole_key_and_contract_change(tmp_path: Path) -> None:
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(pilot)
        await pilot.press("h")
        await pilot.pause()
        # the worst query with a hole is the unknown q5: its top document
        assert screen.query_one(HoleTable).current_hole == ("q5", "Z")
        # ... goes to grading, as the help says
        assert isinstance(app.screen, GradeScreen)
        assert app.screen.session.current == ("q5", "Z")
        await pilot.press("a")
        await settle(pilot)
        # a smaller k audits again: q1's and q2's holes are at rank 3
        app.contract = app.contract.with_changes(k=2)
        await settle(pilot)
        audit = screen.audit
        assert audit is not None and audit.report.k == 2
        assert [h.query_id for h in audit.report.findings.unjudged] == []
        assert "k=2" in screen_text(app)


def test_snapshot_audit_screen(tmp_path: Path, snap_compare: Any) -> None:
    """The audit screen on run alpha under the default contract: the runs on
    the left, coverage 0.8056 with 2 unjudged and the score refused, every
    finding count, the queries worst first with q1 highlighted, and q1's hole
    ``[bold]X`` shown literally beside its details and the run-wide lists, and
    alpha's judged share by rank (1 at ranks 1, 2 and 4; 0 at rank 3, where
    both holes are; no list reaches rank 5)."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("a")
        await settle(pilot)
        table = app.screen.query_one(AuditQueryTable)
        table.focus()
        table.move_cursor(row=2)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_after_a_hole_is_graded_the_next_hole_comes(tmp_path: Path) -> None:
    """j on q1's hole, then a grade: the next hole of the run comes (q1 has no
    other, so the next query's, worst first), then grading goes back to where
    the annotator was once every hole sent is judged."""
    workspace = build_review_workspace(tmp_path)
    app = review_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.contract = app.contract.with_changes(unjudged="zero")
        screen = await open_audit(pilot)
        audit = screen.audit
        assert audit is not None
        order = [(q.query_id, h.doc_id) for q in audit.queries for h in q.holes]
        assert ("q1", "[bold]X") in order and ("q2", "Y") in order
        table = screen.query_one(AuditQueryTable)
        table.focus()
        table.move_cursor(row=[q.query_id for q in audit.queries].index("q1"))
        await pilot.press("enter", "j")
        await settle(pilot)
        grade = app.screen
        assert isinstance(grade, GradeScreen)
        assert grade.session.current == ("q1", "[bold]X")
        expected = [("q1", "[bold]X")] + [item for item in order if item[0] != "q1"]
        assert list(grade.holes) == expected
        await pilot.press("2")
        await settle(pilot)
        assert grade.session.current == expected[1]
        assert "next hole" in screen_text(app)
        for _ in expected[1:]:
            await pilot.press("1")
            await settle(pilot)
        assert grade.holes == ()
        assert "every hole sent from the audit is judged" in screen_text(app)
    with open_workspace(workspace) as ws:
        judgments, _ = workspace_judgments(ws)
    assert all(doc in judgments.get(query, {}) for query, doc in expected)
