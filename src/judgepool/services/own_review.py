"""An annotator's own review: the items to go back to, and their grading rate.

`own_items` lists the items an annotator marked unsure or left a note on
(their latest note, as the grade screen's card shows it), newest first, with
the start of the query's and the document's text: the app's list of "my
unsure and noted items" (key ``m``). It reads the annotator's own rows only,
never another person's grade or note, so it is the same whether grading is
blind or open.

`own_rate` is the annotator's grades per hour, as ``judgepool progress``
defines it (`judgepool.services.assignments.grades_per_hour`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from judgepool.core.readable import readable
from judgepool.services.assignments import grades_per_hour
from judgepool.services.text_parts import text_part
from judgepool.store import own_review as store
from judgepool.store.corpus import TextField
from judgepool.store.workspace import Workspace

START_CHARACTERS: Final = 120
"""How much of a query's or document's text is read for its start."""

LISTED_LIMIT: Final = 1000
"""At most this many items are listed (the newest); all are counted."""


@dataclass(frozen=True)
class OwnItem:
    """One item to go back to: the annotator's grade (None: none) or unsure
    mark, their latest note (None: none), when either last changed, and the
    start of the query's and the document's text on one line (None: the
    workspace has no text)."""

    query_id: str
    doc_id: str
    grade: int | None
    unsure: bool
    note: str | None
    changed_at: str
    query_start: str | None
    doc_start: str | None


@dataclass(frozen=True)
class OwnItems:
    """The listed items (newest first, at most `LISTED_LIMIT`) and what they count."""

    items: tuple[OwnItem, ...]
    total: int
    unsure: int
    noted: int


def one_line_start(ws: Workspace, field: TextField, identifier: str) -> str | None:
    """The start of a text, repaired for reading, its whitespace collapsed."""
    part = text_part(ws, field, identifier, limit=START_CHARACTERS)
    return None if part is None else " ".join(readable(part.text).split())


def own_items(ws: Workspace, annotator: str) -> OwnItems:
    """The items ``annotator`` holds as unsure or left a note on (see the module)."""
    states = store.own_states(ws, annotator)
    notes = store.own_notes(ws, annotator)
    wanted = {item for item, state in states.items() if state.unsure} | set(notes)

    def changed_at(item: tuple[str, str]) -> str:
        times = [state.updated_at] if (state := states.get(item)) else []
        times += [note.created_at] if (note := notes.get(item)) else []
        return max(times)

    ordered = sorted(wanted, key=lambda item: (changed_at(item), item), reverse=True)
    listed: list[OwnItem] = []
    for query_id, doc_id in ordered[:LISTED_LIMIT]:
        state = states.get((query_id, doc_id))
        note = notes.get((query_id, doc_id))
        listed.append(
            OwnItem(
                query_id,
                doc_id,
                None if state is None else state.grade,
                state is not None and state.unsure,
                None if note is None else note.note,
                changed_at((query_id, doc_id)),
                one_line_start(ws, "query text", query_id),
                one_line_start(ws, "document text", doc_id),
            )
        )
    unsure = sum(1 for item in wanted if (state := states.get(item)) and state.unsure)
    return OwnItems(tuple(listed), len(wanted), unsure, len(notes))


def own_rate(ws: Workspace, annotator: str) -> float | None:
    """``annotator``'s grades per hour of the time the app recorded (None: none)."""
    seconds, timed = store.timed_work(ws, annotator)
    return grades_per_hour(timed, seconds)
