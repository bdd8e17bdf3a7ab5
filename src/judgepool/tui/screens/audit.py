"""`AuditScreen`: the audit job — what would make a run's score misleading.

On the left, the workspace's runs; the highlighted one is audited against the
workspace's judgments at the active contract's k (`judgepool.core.audit`,
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
- ``c`` changes the contract; ``f5`` audits again.

After a grade is saved (`GradeSaved`) the audit and score are recomputed —
at once when the screen is showing, else when it is shown again — so judging
the holes visibly moves the run's coverage and score. All reading and
scoring happens in thread workers (exclusive groups ``audit-runs`` and
``audit``), each on a read connection borrowed for the job
(`judgepool.tui.readers`), that post their results as messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from judgepool.core.contract import Contract
from judgepool.core.errors import JudgepoolError
from judgepool.display import literal
from judgepool.services.review import RunAudit, audit_workspace_run
from judgepool.services.scoring import run_names
from judgepool.tui.messages import GradeSaved
from judgepool.tui.readers import ReadConnections
from judgepool.tui.widgets.audit_findings import (
    AuditDetails,
    AuditQueryTable,
    AuditSummary,
    HoleTable,
)
from judgepool.tui.widgets.score_contract import ContractBar, ContractDialog
from judgepool.tui.widgets.score_format import message as message_text
from judgepool.tui.widgets.score_host import host


class AuditScreen(Screen[None]):
    """Audit one run at a time and send its unjudged documents to grading."""

    DEFAULT_CSS = """
    AuditScreen #audit-title {
        height: 1;
        padding: 0 1;
        background: $primary-darken-2;
        text-style: bold;
    }
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
    AuditScreen #audit-bottom {
        height: 12;
    }
    AuditScreen #audit-status {
        height: auto;
        max-height: 3;
        padding: 0 1;
        color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "j",
            "judge_hole",
            "judge hole",
            tooltip="Send the highlighted unjudged document to grading",
        ),
        Binding(
            "h", "next_hole", "next hole", tooltip="Go to the worst query's first unjudged document"
        ),
        Binding(
            "c", "edit_contract", "contract", tooltip="Change the contract; everything recomputes"
        ),
        Binding("f5", "recompute", "re-audit", tooltip="Audit and score the run again"),
    ]

    @dataclass
    class RunsListed(Message):
        names: list[str]

    @dataclass
    class Audited(Message):
        audit: RunAudit
        contract: Contract

    @dataclass
    class Failed(Message):
        run: str | None
        error: str

    @dataclass
    class Progress(Message):
        stage: str

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, AuditScreen.Progress)

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[str] = []
        self.run: str | None = None
        self.audit: RunAudit | None = None
        self._stale = False

    def compose(self) -> ComposeResult:
        yield Static(Text("Audit"), id="audit-title")
        yield ContractBar(id="audit-contract")
        with Horizontal(id="audit-body"):
            with Vertical(id="audit-side"):
                yield Static(Text("runs"))
                yield OptionList(id="audit-runs")
            with Vertical(id="audit-main"):
                yield AuditSummary(id="audit-summary")
                yield AuditQueryTable(id="audit-queries")
                with Horizontal(id="audit-bottom"):
                    yield HoleTable(id="audit-holes")
                    yield AuditDetails(id="audit-details")
        yield Static(id="audit-status")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.app, "contract", self._contract_changed, init=False)
        self.query_one(ContractBar).show(host(self.app).contract)
        self.query_one(HoleTable).show(None)
        self._list_runs(host(self.app).readers)

    # -- the runs ----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="audit-runs")
    def _list_runs(self, readers: ReadConnections) -> None:
        try:
            with readers.lease() as ws:
                names = run_names(ws)
        except JudgepoolError as exc:
            self.post_message(self.Failed(None, str(exc)))
            return
        self.post_message(self.RunsListed(names))

    def on_audit_screen_runs_listed(self, message: RunsListed) -> None:
        if message.names == self.runs:
            return
        self.runs = message.names
        options = self.query_one("#audit-runs", OptionList)
        options.clear_options()
        options.add_options(
            [Option(Text(literal(name), no_wrap=True, overflow="ellipsis")) for name in self.runs]
        )
        if not self.runs:
            self._set_status(Text("the workspace has no runs: import one first", style="yellow"))
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

    # -- recomputing -------------------------------------------------------------

    def recompute(self) -> None:
        """Audit and score the current run again under the app's contract."""
        self._stale = False
        contract = host(self.app).contract
        self.query_one(ContractBar).show(contract)
        if self.run is None:
            return
        self._set_status(Text("auditing…", style="italic"))
        self._audit(host(self.app).readers, self.run, contract)

    @work(thread=True, exclusive=True, group="audit")
    def _audit(self, readers: ReadConnections, run: str, contract: Contract) -> None:
        worker = get_current_worker()

        def progress(stage: str) -> None:
            if not worker.is_cancelled:
                self.post_message(self.Progress(stage))

        try:
            with readers.lease() as ws:
                audit = audit_workspace_run(ws, run, contract, on_progress=progress)
        except JudgepoolError as exc:
            if not worker.is_cancelled:
                self.post_message(self.Failed(run, str(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(self.Audited(audit, contract))

    def _contract_changed(self, contract: Contract) -> None:
        self.recompute()

    def on_grade_saved(self, message: GradeSaved) -> None:
        self._stale = True
        if self.is_current:
            self.recompute()

    def on_screen_resume(self) -> None:
        # runs may have been imported meanwhile; the list refresh is cheap
        self._list_runs(host(self.app).readers)
        if self._stale:
            self.recompute()

    def action_recompute(self) -> None:
        self.recompute()

    # -- results -----------------------------------------------------------------

    def on_audit_screen_progress(self, message: Progress) -> None:
        self._set_status(Text(literal(message.stage) + "…", style="italic"))

    def on_audit_screen_failed(self, message: Failed) -> None:
        if message.run is not None and message.run != self.run:
            return
        self._set_status(message_text(message.error, "bold red"))

    def on_audit_screen_audited(self, message: Audited) -> None:
        audit = message.audit
        if audit.run != self.run or message.contract != host(self.app).contract:
            return  # superseded by a newer request
        self.audit = audit
        table = self.query_one(AuditQueryTable)
        keep = table.current_query
        self.query_one(AuditSummary).show(audit)
        table.show(audit, keep=keep)
        self._show_query(table.current_query)
        status = Text(
            f"judgments digest {audit.qrels_digest[:12]}   "
            "j (or enter on an unjudged document) sends it to grading",
            style="dim",
        )
        self._set_status(status)

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

    def _set_status(self, text: Text) -> None:
        self.query_one("#audit-status", Static).update(text)

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

    def action_judge_hole(self) -> None:
        hole = self.query_one(HoleTable).current_hole
        if hole is None:
            self.notify("highlight an unjudged document first", severity="warning")
            return
        query_id, doc_id = hole
        host(self.app).queue_for_grading(query_id, doc_id)

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

    def action_edit_contract(self) -> None:
        def apply(contract: Contract | None) -> None:
            if contract is not None and contract != host(self.app).contract:
                host(self.app).contract = contract

        self.app.push_screen(ContractDialog(host(self.app).contract), apply)
