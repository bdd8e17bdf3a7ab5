"""Every run's holes at once: the unjudged documents in the top k of all the
workspace's runs, each with the start of its text, for the app's list of
every run's holes (``H`` on the audit screen).

A hole here is what the audit screen shows for one run, gathered over all
runs: on every query a run returned (judged or not yet judged at all), the
documents of its top k at the contract's k that the workspace's judgments
(its consensus rule) do not grade, lists formed as the audit forms them
(`judgepool.core.auditing.audit.audit_contract`: the contract's ties and entities,
duplicates kept once, no refusal). `judgepool.core.holes.settle.find_holes` joins
the runs' holes (which runs returned each one, its best rank) and
`judgepool.core.holes.hole_order` orders them. Nothing here imports Textual: the
app calls `all_runs_holes` in a thread worker, on a read connection of its
own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from judgepool.core.auditing.audit import audit_contract
from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes.hole_order import HoleCounts, best_rank_first, count_holes
from judgepool.core.holes.settle import Hole, find_holes
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import Judgments
from judgepool.services.consensus import workspace_judgments
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run_with_tops
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.services.text_parts import text_part
from judgepool.store.runs import run_query_ids
from judgepool.store.workspace import Workspace

SNIPPET_CHARACTERS: Final = 200
"""How much of a document's text is read for its one-line snippet."""

SHOWN_LIMIT: Final = 2000
"""At most this many holes are listed with their snippets (the first in order);
every hole is still counted, and queued for grading."""


@dataclass(frozen=True)
class ListedHole:
    """One hole as listed: the hole (query, document, runs, best rank) and the
    start of the document's text, repaired for reading, on one line (None when
    the workspace has no text for the document)."""

    hole: Hole
    snippet: str | None


@dataclass(frozen=True)
class AllHoles:
    """Every run's holes in order: the first ``SHOWN_LIMIT`` with snippets, every
    one as (query ID, document ID), what they count, and what they were
    computed on."""

    listed: tuple[ListedHole, ...]
    order: tuple[tuple[str, str], ...]
    counts: HoleCounts
    runs: int
    k: int
    qrels_digest: str


def run_tops(
    ws: Workspace, name: str, judgments: Judgments, qrels_digest: str, contract: Contract
) -> dict[str, TopK]:
    """The stored run's top k on every query it returned, as the audit forms
    it: a query the judgments do not know has every document unjudged."""
    every_query: dict[str, Mapping[str, int]] = {query: {} for query in run_query_ids(ws, name)}
    every_query.update(judgments)
    _, tops = score_run_with_tops(
        stored_source(ws, name),
        JudgmentsSource(every_query, qrels_digest),
        audit_contract(contract.k, contract),
    )
    return tops


def snippet(ws: Workspace, doc_id: str) -> str | None:
    """The start of the document's text as stored (the app shows it repaired,
    on one line: `judgepool.display.one_line`); None without a text."""
    part = text_part(ws, "document text", doc_id, limit=SNIPPET_CHARACTERS)
    return None if part is None else part.text


def all_runs_holes(
    ws: Workspace,
    contract: Contract,
    *,
    rule: str | None = None,
    on_progress: StageCallback = no_stage,
) -> AllHoles:
    """The holes of every stored run at the contract's k, against the
    workspace's judgments under ``rule`` (None: its default consensus), best
    rank first (`best_rank_first`)."""
    on_progress("reading judgments")
    judgments, digest = workspace_judgments(ws, rule)
    names = run_names(ws)
    tops: dict[str, dict[str, TopK]] = {}
    for number, name in enumerate(names, start=1):
        on_progress(f"reading {name} ({number}/{len(names)})")
        tops[name] = run_tops(ws, name, judgments, digest, contract)
    on_progress("finding the holes")
    holes = best_rank_first(find_holes(tops, contract.k))
    on_progress("reading the documents' text")
    listed = tuple(ListedHole(hole, snippet(ws, hole.doc_id)) for hole in holes[:SHOWN_LIMIT])
    return AllHoles(
        listed=listed,
        order=tuple((hole.query_id, hole.doc_id) for hole in holes),
        counts=count_holes(holes),
        runs=len(names),
        k=contract.k,
        qrels_digest=digest,
    )
