"""Exporting the notes annotators left (``judgepool export WS notes``), as TSV or
JSONL, one note per line in ledger order.

TSV columns: query_id, doc_id, annotator, grade ("unsure" when deferred,
empty when withdrawn), created_at, source, event, note. A backslash in a
field is written ``\\\\``, and every character that could act on a terminal
or break the line (tab, line breaks, other controls, bidi marks) as its
visible escape (`judgepool.display.literal`: a tab is ``\\x09``), so each note
stays on one line of one column. The text cells (query_id, doc_id,
annotator, source, note) that a spreadsheet would evaluate as a formula
(starting with ``=``, ``+``, ``-`` or ``@``) get a single quote in front, and
so does one starting with a quote (`judgepool.formats.spreadsheet_cells`):
dropping one leading quote and undoing the escapes reads each back exactly.
The grade, time and event are values the program writes, as they are.
JSONL escapes the same characters the JSON way (``\\u001b``, ``\\u202e``);
other text is kept as it is, formulas included: JSON is read by programs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, TextIO

from judgepool.core.terms.errors import InputError
from judgepool.display import literal
from judgepool.formats.spreadsheet_cells import inert_cell
from judgepool.services.entry_checks import check_known_annotator
from judgepool.store import notes as store
from judgepool.store.notes import Note
from judgepool.store.workspace import Workspace

NOTE_FORMATS: Final = ("tsv", "jsonl")
TSV_HEADER: Final = "query_id\tdoc_id\tannotator\tgrade\tcreated_at\tsource\tevent\tnote\n"
# What json.dumps leaves raw with ensure_ascii=False and a terminal would act
# on: DEL and C1 controls, bidi marks (C0 controls it escapes itself).
_JSON_UNSAFE: Final = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _tsv_field(text: str) -> str:
    return literal(text.replace("\\", "\\\\"))


def _tsv_text(text: str) -> str:
    """A text cell from data: escaped, then made inert for spreadsheets."""
    return inert_cell(_tsv_field(text))


def _json_line(record: Mapping[str, object]) -> str:
    text = json.dumps(record, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


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
            out.write(_json_line(record) + "\n")
            continue
        fields = (
            _tsv_text(note.query_id), _tsv_text(note.doc_id), _tsv_text(note.annotator),
            _grade(note), _tsv_field(note.created_at), _tsv_text(note.source),
            str(note.event_id), _tsv_text(note.note),
        )  # fmt: skip
        out.write("\t".join(fields) + "\n")
    return NotesExport(len(found), len({note.annotator for note in found}))
