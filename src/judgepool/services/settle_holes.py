"""The holes of a workspace's stored runs in settle order, as ``judgepool holes
--workspace WS --order settle`` lists them: every stored run, the
workspace's judgments under its consensus rule, and its default contract,
at its k (``unjudged=reject`` read as ``zero``, as the app's verdicts read
it: the order does not depend on that policy, and ``reject`` would refuse
the very runs whose holes are listed). ``assign --settle N`` hands out the
first of them.
"""

from __future__ import annotations

from judgepool.core.terms.errors import InputError
from judgepool.services.judgments_source import workspace_source
from judgepool.services.pools import pooled_queries
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.services.verdicts import HoleListing, list_holes, verdict_contract
from judgepool.store.workspace import Workspace


def workspace_settle_order(ws: Workspace, *, limit: int | None = None) -> HoleListing:
    """The holes of every stored run's top k in settle order (at most ``limit``)."""
    names = run_names(ws)
    if not names:
        raise InputError(
            "the workspace holds no runs, so it has no holes to settle: import runs first "
            "(judgepool import WS run FILE)",
            str(ws.path),
        )
    judged = workspace_source(ws)
    contract, _ = verdict_contract(ws.default_contract())
    sources = [stored_source(ws, name) for name in names]
    # as ``holes --workspace``: a pooled query before its first grade is all
    # holes (without it, a freshly pooled workspace had "no hole" to assign)
    return list_holes(
        sources,
        judged,
        contract,
        order="settle",
        limit=limit,
        unjudged_queries=pooled_queries(ws),
    )
