"""Following a workspace that other terminals and processes write to while the
app has it open.

- `StoreWatcher` remembers SQLite's ``data_version`` of one connection and the
  newest judgment event it has seen; `StoreWatcher.changed_items` is cheap
  when nothing changed (one pragma, no table read) and otherwise names the
  items that gained judgment events since, so the app re-reads only those.
- `FollowedJudgments`: the workspace's judged universe under its consensus
  rule, kept up to date by reading again only the queries whose items gained
  judgment events since it last looked (the rules decide item by item:
  `judgepool.core.team.consensus`).
- `LiveScores`: every stored run scored against them under one contract, kept
  up to date the same way: after grades, only the queries they touched are
  scored again (`judgepool.core.fast.rescore`), and the board is the one
  `judgepool.services.review.score_workspace_runs` gives for the same
  judgments, number for number (the tests hold it to that on random grades).
  The app's scores screen shows it after every burst of grades.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.scoring.scored_run import ScoredRun
from judgepool.core.team import consensus as rules
from judgepool.core.team.consensus import ItemGrades, Provenance
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import PolicyError
from judgepool.formats.trec import qrels_digest
from judgepool.services.consensus import check_rule
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.store import grading_live, ledger
from judgepool.store import runs as run_store
from judgepool.store.workspace import Workspace

if TYPE_CHECKING:
    from judgepool.core.fast.rescore import RescoredRun, RunQueries
    from judgepool.core.team.consensus import Rule
    from judgepool.services.review import Scoreboard

Item = tuple[str, str]

# A run this long takes long enough to score that the status line says so; a
# shorter one takes less than the frame that would say it (and the app's
# frames share one interpreter with the scoring).
ANNOUNCED_LINES: Final = 200_000


class StoreWatcher:
    """What one connection has seen of the workspace so far."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.version = grading_live.data_version(ws)
        self.last_event = grading_live.last_event_id(ws)
        self.assignment = grading_live.current_assignment_id(ws)

    def changed_items(self, *, force: bool = False) -> list[Item] | None:
        """None when no other connection committed since the last call (and not
        ``force``); else the items with judgment events newer than the last
        seen, oldest change first (possibly none: a commit that wrote no
        judgment). The connection's own grades are included once seen: the
        caller takes them in again, which is harmless."""
        version = grading_live.data_version(self.ws)
        if version == self.version and not force:
            return None
        self.version = version
        self.last_event, items = grading_live.items_changed_since(self.ws, self.last_event)
        return items

    def assignment_changed(self) -> bool:
        """Whether the current assignment is another than when last asked (the
        queues changed: the grading plan must be read again)."""
        assignment = grading_live.current_assignment_id(self.ws)
        changed, self.assignment = assignment != self.assignment, assignment
        return changed


@dataclass(frozen=True)
class _QueryJudgments:
    """One query's part of the judged universe: its documents' grades (never
    changed once made: a snapshot of the universe shares them) and what they
    rest on."""

    grades: dict[str, int]
    provenance: Provenance


class FollowedJudgments:
    """The workspace's judgments under its default consensus rule, as
    `judgepool.services.judgments_source.workspace_source` gives them, kept up
    to date query by query (`refresh`). Models' labels are left out, as there
    by default. Not thread-safe: one caller at a time (`LiveScores` locks)."""

    def __init__(self) -> None:
        self.rule: str | None = None
        self.position = -1  # the newest judgment event taken in (-1: nothing read yet)
        self._queries: dict[str, _QueryJudgments] = {}
        self.source = JudgmentsSource({}, qrels_digest({}))

    def refresh(self, ws: Workspace, on_progress: StageCallback = no_stage) -> set[str] | None:
        """Take in the judgment events since the last refresh: the queries
        whose judgments may have changed, or None when everything was read
        again (the first time, or the workspace's consensus rule changed)."""
        rule = check_rule(ws.default_consensus())
        newest = grading_live.last_event_id(ws)
        # a ledger shorter than what was seen is another file: read it all
        if rule != self.rule or newest < self.position:
            on_progress("reading judgments")
            self._queries = {}
            self._take_in(rule, ledger.item_grades(ws), set())
            touched: set[str] | None = None
        else:
            # read after the newest ID: a grade committed in between is read
            # now and again at the next refresh, never missed
            newest, items = grading_live.items_changed_since(ws, self.position)
            touched = {query for query, _ in items}
            if touched:
                self._take_in(rule, ledger.item_grades(ws, touched), touched)
        self.rule, self.position = rule, newest
        if touched is None or touched:
            self.source = self._source(ws, rule)
        return touched

    def _take_in(self, rule: Rule, items: Iterable[ItemGrades], queries: set[str]) -> None:
        """Decide the items of each query they hold (``queries``: those read
        again; one without items any more is dropped)."""
        by_query: dict[str, list[ItemGrades]] = {}
        for item in items:
            by_query.setdefault(item.query_id, []).append(item)
        for query in queries - by_query.keys():
            self._queries.pop(query, None)
        for query, held in by_query.items():
            decided = rules.consensus(held, rule)
            self._queries[query] = _QueryJudgments(
                decided.judgments.get(query, {}), decided.provenance
            )

    def _source(self, ws: Workspace, rule: str) -> JudgmentsSource:
        parts = self._queries
        judgments = {query: parts[query].grades for query in sorted(parts) if parts[query].grades}
        return JudgmentsSource(
            judgments,
            qrels_digest(judgments),
            workspace=str(ws.path),
            consensus=rule,
            provenance=_merged(part.provenance for part in parts.values()),
        )


def _merged(provenances: Iterable[Provenance]) -> Provenance:
    """The provenance of a universe made of parts (each a query's)."""
    people = imports = adjudications = 0
    models: Counter[str] = Counter()
    unused: dict[str, tuple[int, int]] = {}
    for part in provenances:
        people += part.people
        imports += part.imports
        adjudications += part.adjudications
        models.update(part.models)
        for name, (labels, alone) in part.unused.items():
            before = unused.get(name, (0, 0))
            unused[name] = (before[0] + labels, before[1] + alone)
    return Provenance(people, imports, adjudications, dict(models), unused)


def stored_run_lines(ws: Workspace) -> int | None:
    """The lines of the workspace's stored runs in all; None when it holds none."""
    stored = run_store.list_runs(ws)
    return sum(run.lines for run in stored) if stored else None


class LiveScores:
    """Every stored run scored against the workspace's judgments under one
    contract at a time (`board`), kept between calls: a call after grades
    reads the queries they touched and scores only those again; a new or
    re-imported run is read and scored in full, and so is every run under a
    new contract. Thread-safe: calls wait for each other."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._forget()

    def _forget(self) -> None:
        self.judged = FollowedJudgments()
        self._runs: dict[str, tuple[str, RunQueries]] = {}  # name -> (digest, lines)
        self._scored: dict[str, RescoredRun] = {}
        self._contract: Contract | None = None

    def board(
        self, ws: Workspace, contract: Contract, *, on_progress: StageCallback = no_stage
    ) -> tuple[Scoreboard, JudgmentsSource]:
        """Every run scored under ``contract`` against the judgments as they
        now are (as `score_workspace_runs` scores them), and those judgments."""
        with self._lock:
            try:
                return self._board(ws, contract, on_progress)
            except BaseException:
                # a half-done refresh leaves parts nobody knows are stale
                self._forget()
                raise

    def _board(
        self, ws: Workspace, contract: Contract, on_progress: StageCallback
    ) -> tuple[Scoreboard, JudgmentsSource]:
        # imported here: the app follows grades from its start, and scores
        # only once the scores screen is shown (numpy, pyarrow, the review)
        from judgepool.core.fast.rescore import RescoredRun
        from judgepool.services.review import RunScore, Scoreboard

        touched = self.judged.refresh(ws, on_progress)
        judged = self.judged.source
        judgments = judged.judgments
        if contract != self._contract:
            self._scored.clear()
            self._contract = contract
        runs = self._read_runs(ws)
        scores = []
        for number, (name, (digest, lines)) in enumerate(runs.items(), start=1):
            scored = self._scored.get(name)
            if scored is None:
                if lines.size >= ANNOUNCED_LINES:
                    on_progress(f"scoring {name} ({number}/{len(runs)})")
                scored = self._scored[name] = RescoredRun(lines, contract)
                scored.rescore(judgments)
            elif touched is None or touched:
                scored.rescore(judgments, touched)
            try:
                evaluation = scored.evaluation(judgments, name)
            except PolicyError as exc:
                scores.append(RunScore.refused(name, exc))
            else:
                scores.append(RunScore(name, ScoredRun(name, evaluation, judged.digest, digest)))
        board = Scoreboard(
            contract=contract,
            rule=None,
            qrels_digest=judged.digest,
            judged_queries=len(judgments),
            judgments=sum(len(docs) for docs in judgments.values()),
            runs=tuple(scores),
            provenance=judged.provenance,
        )
        return board, judged

    def _read_runs(self, ws: Workspace) -> dict[str, tuple[str, RunQueries]]:
        """The workspace's runs by name (in name order), each read once: a
        run imported again under its name (another digest) is read again."""
        from judgepool.core.fast.rescore import RunQueries

        stored = {run.name: run.digest for run in run_store.list_runs(ws)}
        for name in [name for name in self._runs if name not in stored]:
            del self._runs[name]
            self._scored.pop(name, None)
        for name, digest in stored.items():
            if name not in self._runs or self._runs[name][0] != digest:
                self._runs[name] = (digest, RunQueries(run_store.run_columns(ws, name)))
                self._scored.pop(name, None)
        return {name: self._runs[name] for name in stored}
