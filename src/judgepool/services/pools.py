"""Pooling: choosing the documents to judge from the runs' top ranks.

A pool only grows: extending it (deeper, or with more runs) adds members and
keeps every existing one, and each member records every run and rank that
brought it in (`judgepool.store.pools`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgepool.core.scoring.pooling import Contribution, pool_contributions
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.entry_checks import check_name, storable
from judgepool.store import pools
from judgepool.store import runs as run_store
from judgepool.store.workspace import Workspace


@dataclass(frozen=True)
class PoolResult:
    """What pooling did: the pool, its depth and runs, how many members are new,
    and its size afterwards."""

    name: str
    depth: int
    runs: tuple[str, ...]
    added: int
    members: int
    queries: int


def pool(
    ws: Workspace,
    *,
    depth: int,
    runs: Sequence[str] | None = None,
    name: str = "default",
) -> PoolResult:
    """Add the top ``depth`` documents per query of each run (every stored run when
    ``runs`` is None) to the pool ``name`` (a name: `judgepool.core.terms.tokens`),
    recording which run and rank brought each one in. A pool only grows:
    existing members are kept."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
        raise InputError(f"depth must be a positive integer, got {depth!r}")
    check_name("pool", name)
    for wanted in runs or ():
        if not storable(wanted):  # not a name SQLite could hold, so not a run's
            raise InputError(f"no run named {quoted(wanted)} in the workspace", str(ws.path))
    chosen = run_store.get_runs(ws, runs)
    if not chosen:
        raise InputError("the workspace has no runs to pool; import one first", str(ws.path))
    contributions: list[Contribution] = []
    for run in chosen:
        contributions.extend(
            pool_contributions(run_store.run_entries(ws, run.name), run.name, depth)
        )
    with ws.write() as conn:
        added = pools.add_to_pool(conn, name, contributions, depth)
    members, queries = pools.pool_size(ws, name)
    return PoolResult(name, depth, tuple(r.name for r in chosen), added, members, queries)


def pooled_queries(ws: Workspace) -> list[str]:
    """The queries chosen for judging: every query a pool of the workspace holds
    documents of (sorted)."""
    return pools.pooled_query_ids(ws)
