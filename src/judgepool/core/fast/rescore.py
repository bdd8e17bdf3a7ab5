"""`RescoredRun`: a run's per-query scores kept, and only the queries whose
judgments changed scored again (the app's live scores screen).

Every per-query value depends on that query's lines and judgments alone (the
property `chunked` rests on), so a query scored on its own lines gives what
the whole run gives for it, bit for bit. A `RescoredRun` holds, per query of
the run, what the engine found: its record (`QueryResult`), or, under a
``reject`` policy, the unjudged documents of its top k or its duplicates
that refuse the run. `rescore` scores some queries again, on their own lines,
against newer judgments; `evaluation` hands the parts of every query, in the
order the engines list them, to `aggregate.evaluate_returned`, the
orchestration both engines share: the refusals, the missing and unknown
queries and the summary are those of scoring the whole run against the same
judgments, as long as every query whose judgments changed was scored again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from judgepool.core.fast.arrays import IntArray
from judgepool.core.fast.duplicates import find_duplicates
from judgepool.core.fast.indexed import index_run
from judgepool.core.fast.judged import Matched
from judgepool.core.fast.matching import find_judged_lines
from judgepool.core.fast.run import ColumnarRun
from judgepool.core.fast.scoring import score_queries
from judgepool.core.scoring.aggregate import ReturnedScores, evaluate_returned
from judgepool.core.scoring.arrow import numpy_of, string_array, take
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicateEntry, UnjudgedEntry
from judgepool.core.terms.types import Evaluation, Judgments, QueryResult


@dataclass(frozen=True, eq=False)
class _Lines:
    """Some rows of a run, in source order, as the engine reads a run."""

    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64]
    ranks: npt.NDArray[np.int64]
    lines: npt.NDArray[np.int64] | None


class RunQueries:
    """A run's lines grouped by query, read once: any set of its queries as a
    run of their own (`lines_of`), every line of each, in source order."""

    def __init__(self, columns: ColumnarRun) -> None:
        self.columns = columns
        query_ids = string_array(columns.query_ids)
        encoded = pc.dictionary_encode(query_ids)
        codes = np.asarray(numpy_of(encoded.indices), dtype=np.int64)
        names = encoded.dictionary.to_pylist()
        # a stable sort keeps each query's rows in source order
        order = np.argsort(codes, kind="stable")
        ends = np.cumsum(np.bincount(codes, minlength=len(names)))
        self.rows: dict[str, IntArray] = {
            name: rows for name, rows in zip(names, np.split(order, ends[:-1]), strict=True)
        }
        self.size = len(codes)

    def lines_of(self, queries: Collection[str]) -> ColumnarRun:
        """The lines of ``queries`` (those of the run), as a run."""
        chosen = [self.rows[query] for query in queries if query in self.rows]
        if sum(len(rows) for rows in chosen) == self.size:
            return self.columns
        rows = np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)
        columns = self.columns
        # row i of a run without line numbers is line i + 1: the duplicates name lines
        lines = rows + 1 if columns.lines is None else np.asarray(columns.lines)[rows]
        return _Lines(
            query_ids=take(string_array(columns.query_ids), rows),
            doc_ids=take(string_array(columns.doc_ids), rows),
            scores=np.asarray(columns.scores, dtype=np.float64)[rows],
            ranks=np.asarray(columns.ranks, dtype=np.int64)[rows],
            lines=lines,
        )


class RescoredRun:
    """One run under one contract, its queries scored part by part (an
    `aggregate.ReturnedQueries`: `evaluation` gives the run's `Evaluation`)."""

    def __init__(self, run: RunQueries, contract: Contract) -> None:
        self.run = run
        self.contract = contract
        self._results: dict[str, QueryResult] = {}
        self._unjudged: dict[str, list[UnjudgedEntry]] = {}
        self._duplicates: dict[str, list[DuplicateEntry]] = {}
        # Judged queries not scored yet: under a reject policy the engine gives
        # only what refuses the run, and nothing reads the others' records
        # while something refuses it. Under duplicates=reject their holes are
        # not known either (``_unscored``); under unjudged=reject they have
        # none (``_hole_free``).
        self._unscored: set[str] = set()
        self._hole_free: set[str] = set()

    def rescore(self, judgments: Judgments, queries: Iterable[str] | None = None) -> None:
        """Score ``queries`` (every query of the run when None) again against
        ``judgments``: what they held before is dropped, a query no longer
        judged keeps nothing."""
        chosen = set(self.run.rows) if queries is None else set(queries) & set(self.run.rows)
        for parts in (self._results, self._unjudged, self._duplicates):
            for query in chosen:
                parts.pop(query, None)
        self._unscored -= chosen
        self._hole_free -= chosen
        judged = [query for query in chosen if query in judgments]
        if judged:
            self._score(judgments, judged)

    def _score(self, judgments: Judgments, queries: Collection[str]) -> None:
        contract = self.contract
        indexed = index_run(self.run.lines_of(queries), judgments, contract)
        lookup = find_judged_lines(indexed, judgments)
        matched = Matched(indexed, lookup, find_duplicates(indexed, contract))
        if matched.duplicates.entries:  # duplicates=reject: the run is refused for them
            refusing = _by_query(matched.duplicates.entries, self._duplicates)
            self._unscored.update(query for query in queries if query not in refusing)
            return
        scores = score_queries(matched, judgments, contract)
        if scores.unjudged:  # unjudged=reject: the engine gives only the holes
            refusing = _by_query(scores.unjudged, self._unjudged)
            self._hole_free.update(query for query in queries if query not in refusing)
            return
        self._results.update(scores.results)

    def query_ids(self) -> Iterable[str]:
        return self.run.rows.keys()

    def duplicates(self) -> Sequence[DuplicateEntry]:
        return _listed(self._duplicates)

    def score(self) -> ReturnedScores:
        if self._unjudged:
            return ReturnedScores({}, _listed(self._unjudged))
        return ReturnedScores(self._results, [])

    def evaluation(self, judgments: Judgments, source: str | None = None) -> Evaluation:
        """The run's `Evaluation` against ``judgments`` (which every query
        scored since they last changed was scored against); raises the
        contract's refusal as scoring the whole run does."""
        # The queries left unscored are scored once what they wait for is
        # gone; their judgments have not changed since (or they would have
        # been scored again), so it is as if they had been scored then.
        if self._unscored and not self._duplicates:
            # their holes are listed with every other query's
            waiting, self._unscored = self._unscored, set()
            self._score(judgments, waiting)
        if self._hole_free and not (self._duplicates or self._unjudged):
            waiting, self._hole_free = self._hole_free, set()
            self._score(judgments, waiting)
        return evaluate_returned(self, judgments, self.contract, source)


Entry = TypeVar("Entry", UnjudgedEntry, DuplicateEntry)


def _listed(parts: dict[str, list[Entry]]) -> list[Entry]:
    """Every query's entries, as the engines list them: by query ID, each
    query's in the engine's order."""
    return [entry for query in sorted(parts) for entry in parts[query]]


def _by_query(entries: Iterable[Entry], into: dict[str, list[Entry]]) -> set[str]:
    """File ``entries`` under their queries in ``into``; the queries."""
    found: set[str] = set()
    for entry in entries:
        into.setdefault(entry.query_id, []).append(entry)
        found.add(entry.query_id)
    return found
