"""What ``judgepool prelabel`` grades, and the prompt of each item.

``--items`` chooses: ``holes`` (the default), the unjudged documents in the
top k of every stored run at the workspace's k, as the audit finds them, by
best rank, no model's grades counted as judgments (so a rerun sees the same
holes and skips those it labelled, and a second model gets them all too);
``pool``, every pooled item; ``assigned``, every item of the current
assignment; or a FILE of ``QUERY DOC`` lines (`judgepool.formats.item_list`).

Of those, a run asks about the items the model holds no grade of from the
same prompt, and leaves out the items whose label of the model was taken
back (``prelabel --withdraw``) unless asked to label them again
(``--relabel-withdrawn``): the labels were withdrawn for a reason, and a
plain rerun should not quietly bring them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgepool.core.holes.hole_order import best_rank_first
from judgepool.core.holes.settle import find_holes
from judgepool.core.prompting.grading_prompt import GradingPrompt, grading_prompt
from judgepool.core.terms.errors import InputError
from judgepool.formats.item_list import read_item_list
from judgepool.services.all_holes import run_tops
from judgepool.services.judgments_source import workspace_source
from judgepool.services.runs.sources import run_names
from judgepool.services.verdicts import verdict_contract
from judgepool.store import assignments, corpus
from judgepool.store.model_replies import labelled_digests
from judgepool.store.model_withdrawal import withdrawn_items
from judgepool.store.workspace import Workspace

ITEM_CHOICES: Final = ("holes", "pool", "assigned")

Item = tuple[str, str]


def _holes(ws: Workspace, rater: str) -> list[Item]:
    names = run_names(ws)
    if not names:
        raise InputError(
            "the workspace holds no runs, so it has no holes: import runs first "
            "(judgepool import WS run FILE), or give --items pool|assigned|FILE",
            str(ws.path),
        )
    # as the audit finds them (`services.all_holes`): every query a run
    # returned, judged yet or not; no model's grades are judgments here (its
    # own: a rerun sees the same holes; another's: each model labels them all)
    judged = workspace_source(ws)
    contract, _ = verdict_contract(ws.default_contract())
    tops = {name: run_tops(ws, name, judged.judgments, judged.digest, contract) for name in names}
    holes = best_rank_first(find_holes(tops, contract.k))
    return [(hole.query_id, hole.doc_id) for hole in holes]


def chosen_items(ws: Workspace, rater: str, items: str) -> list[Item]:
    """The items ``--items`` names (see the module), in order, each once."""
    if items == "holes":
        return _holes(ws, rater)
    if items == "pool":
        found = [(str(q), str(d)) for q, d in assignments.pooled_items(ws)]
        if not found:
            raise InputError("the workspace has no pool: judgepool pool WS --depth D", str(ws.path))
        return found
    if items == "assigned":
        current = assignments.current_assignment(ws)
        if current is None:
            raise InputError("the workspace has no assignment: judgepool assign WS ...")
        rows = assignments.assignment_rows(ws, current.id)
        return sorted({(query_id, doc_id) for _, query_id, doc_id in rows})
    return read_item_list(Path(items))


@dataclass(frozen=True)
class PreparedItem:
    """One item with its prompt, or why it cannot be graded (no text)."""

    query_id: str
    doc_id: str
    prompt: GradingPrompt | None
    problem: str | None = None


def prepare(ws: Workspace, item: Item) -> PreparedItem:
    """The item's prompt from the workspace's query, narrative and document."""
    query_id, doc_id = item
    query = corpus.get_query(ws, query_id)
    if query is None or not query.text:
        return PreparedItem(query_id, doc_id, None, "no text for the query in the workspace")
    document = corpus.get_document(ws, doc_id)
    if document is None or not document.text:
        return PreparedItem(query_id, doc_id, None, "no text for the document in the workspace")
    text = document.text if not document.title else f"{document.title}\n{document.text}"
    prompt = grading_prompt(query.text, query.narrative, text, ws.labels(), ws.scale)
    return PreparedItem(query_id, doc_id, prompt)


@dataclass(frozen=True)
class Batch:
    """What a run is to ask (in order, at most the limit), and what it skips:
    the items the model labelled already with the same prompt, and those
    whose label of the model was withdrawn."""

    todo: tuple[PreparedItem, ...]
    skipped: int
    chosen: int
    withdrawn: int = 0


def prepare_batch(
    ws: Workspace,
    rater: str,
    items: Sequence[Item],
    limit: int | None = None,
    *,
    relabel_withdrawn: bool = False,
) -> Batch:
    """The items still to label (a prompt each), the already labelled skipped,
    and the withdrawn ones too unless ``relabel_withdrawn``."""
    done = labelled_digests(ws, rater)
    taken_back = set() if relabel_withdrawn else withdrawn_items(ws, rater)
    todo: list[PreparedItem] = []
    skipped = withdrawn = 0
    for item in items:
        if limit is not None and len(todo) >= limit:
            break
        if item in taken_back:
            withdrawn += 1
            continue
        prepared = prepare(ws, item)
        if prepared.prompt is not None and done.get(item) == prepared.prompt.digest:
            skipped += 1
            continue
        todo.append(prepared)
    return Batch(tuple(todo), skipped, len(items), withdrawn)
