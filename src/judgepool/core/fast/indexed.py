"""The run made ready for matching: its columns, layout and sorted keys, and
which of its queries the judgments know."""

from __future__ import annotations

from dataclasses import dataclass

from judgepool.core.fast.keys import Keys, keys_alongside
from judgepool.core.fast.layout import Layout, build_layout, find_queries
from judgepool.core.fast.run import ColumnarRun, Run
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import Judgments


@dataclass(frozen=True, eq=False)
class IndexedRun:
    """A run with its ranked layout and hashed keys. ``judged[s]``: the
    judgments know the query of segment ``s``."""

    run: Run
    layout: Layout
    keys: Keys
    judged: list[bool]


def index_run(columns: ColumnarRun, judgments: Judgments, contract: Contract) -> IndexedRun:
    """Check the columns (the scores at the contract's precision), then group,
    order and hash the run (the ordering and the hashing overlap on a large run)."""
    run = Run.of(columns, contract.score_precision)
    queries = find_queries(run)
    keys, layout = keys_alongside(
        run, queries, contract, lambda: build_layout(run, queries, contract.ties)
    )
    judged = [query_id in judgments for query_id in layout.query_ids]
    return IndexedRun(run, layout, keys, judged)
