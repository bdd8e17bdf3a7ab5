"""Exporting the notes annotators left (``judgepool export WS notes``), as TSV or
JSONL, one note per line in ledger order.

TSV columns: query_id, doc_id, annotator, grade ("unsure" when deferred,
empty when withdrawn), created_at, source, event, note. A tab, line break or
backslash in a note is written as ``\\t``, ``\\n``, ``\\r`` or ``\\\\``, so each
note stays on one line of one column; JSONL keeps the note as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final, TextIO

from judgepool.core.errors import InputError
from judgepool.services.entry_checks import check_known_annotator
from judgepool.store import notes as store
from judgepool.store.notes import Note
from judgepool.store.workspace import Workspace

NOTE_FORMATS: Final = ("tsv", "jsonl")
TSV_HEADER: Final = "query_id\tdoc_id\tannotator\tgrade\tcreated_at\tsource\tevent\tnote\n"
_TSV_ESCAPES: Final = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


@dataclass(frozen=True)
class NotesExport:
    notes: int
    annotators: int


def _grade(note: Note) -> str:
    if note.unsure:
        return "unsure"
    return "" if note.grade is None else str(note.grade)


def export_notes(
    ws: Workspace, out: TextIO, *, fmt: str = "tsv", annotator: str | None = None
) -> NotesExport:
    """Write every note (of ``annotator``, if given) to ``out`` in ``fmt``."""
    if fmt not in NOTE_FORMATS:
        raise InputError(f"notes are exported as {' or '.join(NOTE_FORMATS)}, not {fmt!r}")
    if annotator is not None:
        check_known_annotator(ws, annotator)
    found = store.notes(ws, annotator=annotator)
    if fmt == "tsv":
        out.write(TSV_HEADER)
    for note in found:
        if fmt == "jsonl":
            record = {
                "query_id": note.query_id,
                "doc_id": note.doc_id,
                "annotator": note.annotator,
                "grade": note.grade,
                "unsure": note.unsure,
                "created_at": note.created_at,
                "source": note.source,
                "event": note.event_id,
                "note": note.note,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            continue
        fields = (
            note.query_id, note.doc_id, note.annotator, _grade(note), note.created_at,
            note.source, str(note.event_id), note.note,
        )  # fmt: skip
        out.write("\t".join(field.translate(_TSV_ESCAPES) for field in fields) + "\n")
    return NotesExport(len(found), len({note.annotator for note in found}))
