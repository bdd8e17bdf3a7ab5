"""`AuditScreen`: the audit job — what would make a run's score misleading.

On the left, the workspace's runs; the highlighted one is audited against the
workspace's judgments at the active contract's k (`judgepool.core.auditing.audit`,
the same findings as ``judgepool audit``) and scored under the contract. On
the right: the run's coverage, score and the count of every finding kind; its
queries worst first (lowest judged@k, a skipped query counting as fully
judged since it has nothing to judge, then the most findings); and for the
highlighted query its unjudged documents in the top k ("holes") beside the
details of its findings and the run-wide lists (bad lines, unknown, missing
and zero-IDCG queries).

Bindings (also in the footer):

- ``j`` (or ``enter`` on a hole) sends the highlighted unjudged document to
  grading (``app.queue_for_grading``); ``enter`` on a query moves to its holes;
- ``h`` jumps to the first hole of the worst query that has one;
- ``H`` lists the holes of every run at once, each with the start of its
  text (`judgepool.tui.dialogs.all_holes`); enter there sends one to grading;
- ``p`` every pair of runs: tests, bounds and verdicts (the pairs' verdicts,
  with the holes between each pair and a verdict, are shown above the queries);
- ``P`` the run's judged share by rank 1..k (`JudgedSharePlot`, beside the
  holes where there is room) in the room of the queries, holes and pairs (and back);
- ``c`` changes the contract; ``f5`` audits again.

After a grade is saved (`GradeSaved`) the audit and score are recomputed —
at once when the screen is showing, else when it is shown again — so judging
the holes visibly moves the run's coverage and score. All reading and
scoring happens in thread workers (exclusive groups ``audit-runs`` and
``audit``), each on a read connection borrowed for the job and posting what
it read (`RunsListed`, `Audited`); the layout, the contract and the
recomputing are `ReviewScreen`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from judgepool.core.terms.contract import Contract
from judgepool.display import literal
from judgepool.services.review import RunAudit, audit_workspace_run
from judgepool.services.runs.sources import run_names
from judgepool.tui.background import Refused, post, read
from judgepool.tui.screens.review import ReviewScreen
from judgepool.tui.widgets.audit_findings import (
    AuditDetails,
    AuditQueryTable,
    AuditSummary,
    HoleTable,
)
from judgepool.tui.widgets.judged_share_plot import JudgedSharePlot

if TYPE_CHECKING:
    from judgepool.tui.readers import ReadConnections


class AuditScreen(ReviewScreen):
    """Audit one run at a time and send its unjudged documents to grading."""

    NAME = "audit"
    HEADING = "Audit"

    DEFAULT_CSS = """
    AuditScreen #audit-body {
        height: 1fr;
    }
    AuditScreen #audit-side {
        width: 30;
        border-right: vkey $primary-darken-2;
    }
    AuditScreen #audit-side > Static {
        height: 1;
        padding: 0 1;
        text-style: bold;
    }
    AuditScreen #audit-runs {
        height: 1fr;
    }
    AuditScreen #audit-main {
        width: 1fr;
    }
    AuditScreen #audit-lists {
        height: 1fr;
    }
    AuditScreen #audit-bottom {
        height: 1fr;
    }
    AuditScreen #audit-status {
        max-height: 3;
    }
    AuditScreen #audit-share {
        width: 36;
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "j",
            "judge_hole",
            "judge",
            tooltip="Send the highlighted unjudged document to grading",
        ),
        Binding(
            "h",
            "next_hole",
            "next hole",
            tooltip=(
                "Judge the holes: the worst query's first unjudged document goes to grading, "
                "and after each grade the next hole (same query first)"
            ),
        ),
        Binding(
            "H",
            "all_holes",
            "all holes",
            tooltip=(
                "List the holes of every run at once, best rank first, with the start of "
                "each document's text; enter sends one to grading, then the rest"
            ),
        ),
        Binding(
            "P",
            "toggle_plot",
            "plot",
            # on ? (help): at 80 columns the footer has no room left for it
            show=False,
            tooltip="The run's judged share by rank 1..k in the room of the queries and holes "
            "(P again: back)",
        ),
        Binding(
            "c", "edit_contract", "contract", tooltip="Change the contract; everything recomputes"
        ),
        # R too: a browser (judgepool serve) takes F5 to reload the page
        Binding("f5,R", "recompute", "re-audit", tooltip="Audit and score the run again"),
    ]

    @dataclass
    class RunsListed(Message, bubble=False):
        """The workspace's runs, by name, or why they could not be listed."""

        names: list[str] | Refused

    @dataclass
    class Audited(Message, bubble=False):
        """``run`` audited under ``contract``, or why it was not."""

        run: str
        contract: Contract
        audit: RunAudit | Refused

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[str] = []
        self.run: str | None = None
        self.audit: RunAudit | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="audit-body"):
            with Vertical(id="audit-side"):
                yield Static(Text("runs"))
                yield OptionList(id="audit-runs")
            with Vertical(id="audit-main"):
                yield AuditSummary(id="audit-summary")
                yield from self.compose_verdicts()
                # the queries above their holes; side by side in a short terminal
                with Vertical(id="audit-lists"):
                    yield AuditQueryTable(id="audit-queries")
                    with Horizontal(id="audit-bottom"):
                        yield HoleTable(id="audit-holes")
                        yield AuditDetails(id="audit-details")
                        yield JudgedSharePlot(id="audit-share")

    def started(self) -> None:
        self.query_one(HoleTable).show(None)
        self._list_runs()

    def resumed(self) -> None:
        # runs may have been imported meanwhile; the list refresh is cheap
        self._list_runs()

    # -- the runs ----------------------------------------------------------------

    def _list_runs(self) -> None:
        self._read_runs(self.host.readers)

    @work(thread=True, exclusive=True, group="audit-runs")
    def _read_runs(self, readers: ReadConnections) -> None:
        post(self, self.RunsListed(read(readers, run_names)))

    def on_audit_screen_runs_listed(self, message: RunsListed) -> None:
        names = message.names
        if isinstance(names, Refused):
            self.show_error(names.reason)
            return
        if names == self.runs:
            return
        self.runs = names
        options = self.query_one("#audit-runs", OptionList)
        options.clear_options()
        options.add_options(
            [Option(Text(literal(name), no_wrap=True, overflow="ellipsis")) for name in self.runs]
        )
        if not self.runs:
            self.set_status(Text("the workspace has no runs: import one first", style="yellow"))
            return
        keep = self.run if self.run in self.runs else self.runs[0]
        options.highlighted = self.runs.index(keep)
        if keep != self.run or self.audit is None:
            self.select_run(keep)

    @on(OptionList.OptionHighlighted, "#audit-runs")
    def _run_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = event.option_index
        if 0 <= index < len(self.runs) and self.runs[index] != self.run:
            self.select_run(self.runs[index])

    @on(OptionList.OptionSelected, "#audit-runs")
    def _run_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one(AuditQueryTable).focus()

    def select_run(self, name: str) -> None:
        """Audit the run ``name``."""
        self.run = name
        self.recompute()

    # -- auditing ----------------------------------------------------------------

    def compute(self, contract: Contract) -> None:
        """Audit and score the current run under ``contract``, in a worker."""
        self.compute_verdicts(contract)
        run = self.run
        if run is None:
            return
        self.set_status(Text("auditing…", style="italic"))
        self._audit_run(self.host.readers, run, contract)

    @work(thread=True, exclusive=True, group="audit")
    def _audit_run(self, readers: ReadConnections, run: str, contract: Contract) -> None:
        audit = read(
            readers, lambda ws: audit_workspace_run(ws, run, contract, on_progress=self.stage)
        )
        post(self, self.Audited(run, contract, audit))

    def on_audit_screen_audited(self, message: Audited) -> None:
        contract, audit = message.contract, message.audit
        if isinstance(audit, Refused):
            if message.run == self.run:
                self.show_error(audit.reason)
            return
        if audit.run != self.run or contract != self.host.contract:
            return  # superseded by a newer request
        self.audit = audit
        table = self.query_one(AuditQueryTable)
        keep = table.current_query
        self.query_one(AuditSummary).show(audit)
        self.query_one(JudgedSharePlot).show(audit.run, audit.judged_share)
        table.show(audit, keep=keep)
        self._show_query(table.current_query)
        status = Text(
            f"judgments digest {audit.qrels_digest[:12]} · "
            "j (or enter on a hole) sends it to grading",
            style="dim",
        )
        self.set_status(status)

    @on(DataTable.RowHighlighted, "#audit-queries")
    def _query_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_query(None if event.row_key.value is None else str(event.row_key.value))

    def _show_query(self, query_id: str | None) -> None:
        audit = self.audit
        holes = self.query_one(HoleTable)
        if audit is None:
            holes.show(None)
            return
        try:
            query = audit.query(query_id) if query_id is not None else None
        except KeyError:
            query = None
        holes.show(query)
        self.query_one(AuditDetails).show(audit.report, query)

    # -- judging the holes -------------------------------------------------------

    @on(DataTable.RowSelected, "#audit-queries")
    def _query_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        holes = self.query_one(HoleTable)
        if holes.row_count:
            holes.focus()
        else:
            self.notify("this query has no unjudged documents in the top k")

    @on(DataTable.RowSelected, "#audit-holes")
    def _hole_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_judge_hole()

    def action_toggle_plot(self) -> None:
        self.toggle_class("-plotted")

    def action_judge_hole(self) -> None:
        hole = self.query_one(HoleTable).current_hole
        if hole is None:
            self.notify("highlight an unjudged document first", severity="warning")
            return
        self.host.queue_holes(self._holes_from(*hole))

    def _holes_from(self, query_id: str, doc_id: str) -> list[tuple[str, str]]:
        """The run's holes to judge from this one: the rest of its query's (by
        rank), then the other queries' in the table's order (worst first)."""
        audit = self.audit
        queries = audit.queries if audit is not None else ()
        own = [h.doc_id for q in queries if q.query_id == query_id for h in q.holes]
        at = own.index(doc_id) if doc_id in own else len(own)
        order = [(query_id, doc_id)]
        order += [(query_id, d) for d in own[at + 1 :] + own[:at]]
        for query in queries:
            if query.query_id != query_id:
                order += [(query.query_id, hole.doc_id) for hole in query.holes]
        return order

    def action_all_holes(self) -> None:
        # imported here: the audit's import time, not the dialog's
        from judgepool.tui.dialogs.all_holes import AllHolesScreen

        self.app.push_screen(AllHolesScreen(self.host.contract))

    def action_next_hole(self) -> None:
        audit = self.audit
        if audit is None:
            return
        worst = next((q for q in audit.queries if q.holes), None)
        if worst is None:
            self.notify("no unjudged documents in the top k: the run is fully judged")
            return
        table = self.query_one(AuditQueryTable)
        table.move_cursor(row=[q.query_id for q in audit.queries].index(worst.query_id))
        self._show_query(worst.query_id)
        holes = self.query_one(HoleTable)
        holes.move_cursor(row=0)
        holes.focus()
        self.host.queue_holes(self._holes_from(worst.query_id, worst.holes[0].doc_id))
