"""`evaluate_columns`: the fast engine's part of an evaluation, computed on a
whole run at once, handed to the orchestration both engines share."""

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
from judgepool.core.terms.errors import DuplicateEntry
from judgepool.core.terms.types import Evaluation, Judgments


class _FastQueries:
    """The judged queries a run returned, as the fast engine scores them
    (an `aggregate.ReturnedQueries`)."""

    def __init__(
        self,
        indexed: IndexedRun,
        judgments: Judgments,
        contract: Contract,
        lookup: JudgedLines | None = None,
    ) -> None:
        self._judgments = judgments
        self._contract = contract
        if lookup is None:
            lookup = find_judged_lines(indexed, judgments)
        self._matched = Matched(indexed, lookup, find_duplicates(indexed, contract))

    def query_ids(self) -> Iterable[str]:
        return self._matched.layout.query_ids

    def duplicates(self) -> Sequence[DuplicateEntry]:
        return self._matched.duplicates.entries

    def score(self) -> ReturnedScores:
        return score_queries(self._matched, self._judgments, self._contract)

    def tops(self) -> dict[str, TopK]:
        return fast_tops(self._matched, self._contract.k)


def evaluate_columns(
    columns: ColumnarRun,
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
) -> Evaluation:
    """Score a run given as columns: the same `Evaluation` as `aggregate.evaluate`.

    Raises `DuplicatesRejected` / `UnjudgedRejected` when a ``reject`` policy
    refuses the run, listing every offending entry across all judged queries.
    """
    indexed = index_run(columns, judgments, contract)
    return evaluate_indexed(indexed, judgments, contract, source)


def evaluate_indexed(
    indexed: IndexedRun,
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
    lookup: JudgedLines | None = None,
) -> Evaluation:
    """`evaluate_columns` on a run already indexed (under a contract with the
    same ``ties``, ``score_precision`` and ``entity``: nothing else shapes the
    index), reusing its judged lines when ``lookup`` gives them (an audit of
    the same pass found them)."""
    return evaluate_returned(
        _FastQueries(indexed, judgments, contract, lookup), judgments, contract, source
    )


def evaluate_columns_with_tops(
    columns: ColumnarRun,
    judgments: Judgments,
    contract: Contract,
    source: str | None = None,
) -> tuple[Evaluation, dict[str, TopK]]:
    """`evaluate_columns`, and the top k of every judged query the run returned
    (`judgepool.core.fast.top.fast_tops`), from the same matched run."""
    indexed = index_run(columns, judgments, contract)
    queries = _FastQueries(indexed, judgments, contract)
    evaluation = evaluate_returned(queries, judgments, contract, source)
    return evaluation, queries.tops()
