"""A run evaluated chunk by chunk: `ChunkedQueries`, the fast engine's scores of
a run that comes in chunks of whole queries, merged into one evaluation.

Every per-query value depends on that query's lines alone, so a chunk that
holds every line of its queries scores them exactly as the whole run would
(same code, same operations, same order: bit-identical). What spans chunks is
gathered here and handed to `aggregate.evaluate_returned`, the same
orchestration the whole-run engine uses: the query IDs seen (for the unknown
queries; the judged ones never seen become missing there), the duplicates and
the unjudged entries the ``reject`` policies list (each engine lists them by
query ID: a stable sort by query ID of the chunks' lists, each already in
order within its queries, gives the whole run's order), and the records the
summary is computed from (means, pooled ratio, zero-IDCG counts: all over the
records in query ID order, as for a whole run).

A query whose lines come back after another query's would be scored from
part of its lines: `add` refuses a chunk holding a query an earlier chunk
held (`QuerySplit`), and the caller groups the run another way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from judgepool.core.comparing.bounds import TopK
from judgepool.core.fast.duplicates import find_duplicates
from judgepool.core.fast.indexed import IndexedRun, index_run
from judgepool.core.fast.judged import Matched
from judgepool.core.fast.matching import JudgedLines, find_judged_lines
from judgepool.core.fast.run import ColumnarRun
from judgepool.core.fast.scoring import score_queries
from judgepool.core.fast.top import fast_tops
from judgepool.core.scoring.aggregate import ReturnedScores, evaluate_returned
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicateEntry, UnjudgedEntry
from judgepool.core.terms.types import Evaluation, Judgments, QueryResult


class QuerySplit(Exception):
    """A chunk holds a query an earlier chunk held: the run does not keep each
    query's lines together."""

    def __init__(self, query_id: str) -> None:
        super().__init__(query_id)
        self.query_id = query_id


class SeenQueries:
    """The queries a pass in chunks has taken: one met again in a later chunk
    raises `QuerySplit` (the file does not keep its lines together)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def take(self, query_ids: Iterable[str]) -> None:
        """Record a chunk's queries; `QuerySplit`, recording none, when one
        was taken before."""
        ids = list(query_ids)
        for query_id in ids:
            if query_id in self._seen:
                raise QuerySplit(query_id)
        self._seen.update(ids)


class ChunkedQueries:
    """The judged queries of a run given chunk by chunk (`add`), as an
    `aggregate.ReturnedQueries`: `evaluation` gives the run's `Evaluation`."""

    def __init__(self, judgments: Judgments, contract: Contract, *, with_tops: bool = False):
        self._judgments = judgments
        self._contract = contract
        self._with_tops = with_tops
        self._seen = SeenQueries()
        self._unknown: list[str] = []
        self._duplicates: list[DuplicateEntry] = []
        self._results: dict[str, QueryResult] = {}
        self._unjudged: list[UnjudgedEntry] = []
        self.tops: dict[str, TopK] = {}
        self.rows = 0

    def add(self, chunk: ColumnarRun) -> None:
        """Score the queries of ``chunk`` (every line of each). Raises
        `QuerySplit`, adding nothing, when an earlier chunk held one of them."""
        self.add_indexed(index_run(chunk, self._judgments, self._contract))

    def add_indexed(self, indexed: IndexedRun, lookup: JudgedLines | None = None) -> None:
        """`add` of a chunk already indexed (under any contract with this one's
        tie policy and entity pattern: the index depends on those alone), its
        judged lines ``lookup`` found too when given: a pass that audits the
        chunk as well shares them."""
        judgments, contract = self._judgments, self._contract
        query_ids = indexed.layout.query_ids
        self._seen.take(query_ids)
        self.rows += indexed.run.size
        self._unknown.extend(q for q in query_ids if q not in judgments)
        if lookup is None:
            lookup = find_judged_lines(indexed, judgments)
        matched = Matched(indexed, lookup, find_duplicates(indexed, contract))
        self._duplicates.extend(matched.duplicates.entries)
        if contract.duplicates == "reject" and self._duplicates:
            return  # the run is refused: its scores are never read
        scores = score_queries(matched, judgments, contract)
        self._results.update(scores.results)
        self._unjudged.extend(scores.unjudged)
        if self._with_tops:
            self.tops.update(fast_tops(matched, contract.k))

    def query_ids(self) -> Iterable[str]:
        # only the unknown ones are kept: the caller asks for those alone
        return self._unknown

    def duplicates(self) -> Sequence[DuplicateEntry]:
        return sorted(self._duplicates, key=lambda entry: entry.query_id)

    def score(self) -> ReturnedScores:
        if self._unjudged:
            # an engine lists only the unjudged entries when there are some
            # (unjudged=reject refuses the run)
            return ReturnedScores({}, sorted(self._unjudged, key=lambda entry: entry.query_id))
        return ReturnedScores(self._results, [])

    def evaluation(self, source: str | None = None) -> Evaluation:
        """The run's `Evaluation` (as `evaluate_columns` gives for the whole
        run); raises what it raises under the ``reject`` policies."""
        return evaluate_returned(self, self._judgments, self._contract, source)
