"""Workspace settings that are not the contract: whether grading is blind,
and (`workspace_settings`) all that people may read, the guidelines'
digest among them (the guidelines themselves: `judgepool.services.guidelines`).

Blind grading (the default) means an annotator grading never sees another
annotator's grade or note, nor a run, rank or score; adjudicators see
everything in the adjudication view whatever this says. The app reads it
through `blind_grading`.
"""

from __future__ import annotations

from typing import Any, Final

from judgepool.services.guidelines import current_guidelines, seen_by
from judgepool.store.workspace import Workspace

BLIND_KEY: Final = "blind_grading"


def blind_grading(ws: Workspace) -> bool:
    """Whether annotators grade blind in ``ws`` (True unless set off)."""
    return ws.setting(BLIND_KEY, True) is not False


def set_blind_grading(ws: Workspace, blind: bool) -> None:
    """Turn blind grading on or off for every annotator of ``ws`` (one transaction)."""
    with ws.write() as conn:
        ws.put_setting(conn, BLIND_KEY, blind)


def workspace_settings(ws: Workspace) -> dict[str, Any]:
    """The settings people may read or change, by name: blind grading, the
    grade scale and labels, the default consensus rule and contract, and the
    guidelines (None, or their digest, first line, size, when they were set
    and who was shown them)."""
    guidelines = current_guidelines(ws)
    return {
        "blind": blind_grading(ws),
        "scale": str(ws.scale),
        "labels": {str(grade): label for grade, label in ws.labels().items()},
        "consensus": ws.default_consensus(),
        "contract": ws.default_contract().describe(),
        "guidelines": None
        if guidelines is None
        else {
            "digest": guidelines.digest,
            "first_line": guidelines.first_line,
            "lines": guidelines.lines,
            "characters": len(guidelines.text),
            "set_at": guidelines.set_at,
            "seen_by": seen_by(ws, guidelines.digest),
        },
    }
