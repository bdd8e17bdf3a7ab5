"""Each run's top k per judged query, as the bounds and the settle order read
it: the reference implementation, query by query.

A run's top k is the first k entries of its formed list after ordering (the
tie policy) and duplicate handling, before the unjudged policy: under
``unjudged=condense`` the unjudged documents keep their places here, as the
contract's bounds say they do. Each entry is (entity, grade or None when the
entity is unjudged): `judgepool.core.comparing.bounds.TopK`. The fast engine's
`judgepool.core.fast.top.fast_tops` gives the same lists from the run's
columns; the tests hold the two together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from judgepool.core.comparing.bounds import TopK
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import Judgments, RunEntry


def reference_tops(
    grouped: Mapping[str, Sequence[RunEntry]], judgments: Judgments, contract: Contract
) -> dict[str, TopK]:
    """The top k of every judged query the run returned, by query ID."""
    tops: dict[str, TopK] = {}
    for query_id, entries in grouped.items():
        judged = judgments.get(query_id)
        if judged is None:
            continue
        formed = form_list(query_id, entries, judged, contract)
        tops[query_id] = tuple((doc.entity, doc.grade) for doc in formed.deduplicated[: contract.k])
    return tops
