"""The holes of the workspace's runs in settle order, narrowed one judgment at a time.

`SettleQueue` holds the settle order (`judgepool.core.holes.settle.SettleState`)
of every pair of the workspace's stored runs, and takes in each grade as it
is saved; `SettleStep` is where the order stands. The app's grade screen
ranks its settle order with it, in a thread worker on a borrowed read
connection: nothing here needs the app.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from judgepool.core.comparing.verdicts import RunInput, population
from judgepool.core.holes.settle import Hole, SettleState
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError
from judgepool.services.assignments import assigned_items
from judgepool.services.judgments_source import workspace_source
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.services.verdicts import read_runs, verdict_contract
from judgepool.services.workspace import Workspace


@dataclass(frozen=True)
class SettleStep:
    """Where the settle order stands: the next hole to judge (None when no hole
    is left that could move a comparison), how many holes remain, and of the
    pairs the exact bounds leave open how many the draws call probable and how
    many are still undecided ("could flip"). ``in_queue``: the holes are those
    of the annotator's queue (their items of the current assignment)."""

    hole: Hole | None
    holes: int
    undecided: int
    probable: int
    pairs: int
    in_queue: bool = False

    @property
    def open_pairs(self) -> int:
        """The pairs the exact bounds could still flip (probable ones included)."""
        return self.undecided + self.probable


class SettleQueue:
    """The workspace's holes in settle order, narrowed one judgment at a time.

    Thread-safe: a worker may judge and rank while another waits (the grade
    screen's workers for successive grades run one after another)."""

    def __init__(
        self, state: SettleState, within: frozenset[tuple[str, str]] | None = None
    ) -> None:
        self._state = state
        # the annotator's queue: the holes outside it are someone else's work
        self._within = within
        self._lock = threading.Lock()
        # holes the annotator deferred (unsure) in this settle order: shown last
        self._deferred: list[tuple[str, str]] = []

    @classmethod
    def of_workspace(
        cls,
        ws: Workspace,
        contract: Contract,
        *,
        annotator: str | None = None,
        on_progress: StageCallback = no_stage,
    ) -> SettleQueue:
        """The settle order of every pair of the workspace's runs, on the
        queries scored for every run (as ``judgepool holes --workspace``);
        with ``annotator``, only the holes of their queue when the current
        assignment gives them one."""
        names = run_names(ws)
        if not names:
            raise ContractError("the workspace has no runs: import runs to compare first")
        on_progress("reading judgments")
        judged = workspace_source(ws)
        sources = [stored_source(ws, name) for name in names]
        contract, _ = verdict_contract(contract)
        scored = read_runs(sources, judged, contract, "fast", on_progress)
        on_progress("finding the holes")
        inputs = [RunInput(run.run, run.evaluation, top) for run, top in scored]
        queries, _ = population(inputs)
        tops = [{q: run.top[q] for q in queries if q in run.top} for run in inputs]
        pairs = list(itertools.combinations(range(len(names)), 2))
        within = None if annotator is None else assigned_items(ws, annotator)
        return cls(
            SettleState(names, tops, judged.judgments, contract, queries, pairs),
            None if within is None else frozenset(within),
        )

    def judge(self, query_id: str, doc_id: str, grade: int) -> None:
        """Take in a saved grade (a document outside every top k changes nothing)."""
        with self._lock:
            if query_id in self._state.judgments:
                self._state.judge(query_id, doc_id, grade)

    def defer(self, query_id: str, doc_id: str) -> None:
        """The annotator is unsure of this hole: offer the others first."""
        with self._lock:
            if (query_id, doc_id) not in self._deferred:
                self._deferred.append((query_id, doc_id))

    def step(self) -> SettleStep:
        """The next hole in settle order, and what remains."""
        with self._lock:
            ranked = [hole for hole, _ in self._state.priorities()]
            open_pairs = len(self._state.open_pairs())
            undecided = len(self._state.undecided_pairs())
            pairs = len(self._state.pairs)
        within = self._within
        if within is not None:
            ranked = [hole for hole in ranked if (hole.query_id, hole.doc_id) in within]
        first = _first(ranked, self._deferred)
        return SettleStep(
            first, len(ranked), undecided, open_pairs - undecided, pairs, within is not None
        )


def _first(ranked: Iterable[Hole], deferred: list[tuple[str, str]]) -> Hole | None:
    later: dict[tuple[str, str], Hole] = {}
    for hole in ranked:
        key = (hole.query_id, hole.doc_id)
        if key not in deferred:
            return hole
        later[key] = hole
    return next((later[key] for key in deferred if key in later), None)
