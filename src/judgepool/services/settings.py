"""Workspace settings that are not the contract: whether grading is blind,
what search and judge may do, and (`workspace_settings`) all that people may
read, the guidelines' digest among them (the guidelines themselves:
`judgepool.services.guidelines`).

Blind grading (the default) means an annotator grading never sees another
annotator's grade or note, nor a run, rank or score; adjudicators see
everything in the adjudication view whatever this says. The app reads it
through `blind_grading`.

Search and judge (`search_judging`; the grade screen's ``f``,
`judgepool.services.search_judge`) puts a document the pool missed into the
pool, so, once graded, into the judged universe: ``allowed`` (the default)
at once, ``review`` once a lead accepts it (``judgepool finds``), ``off``
not at all (``f`` does not search).
"""

from __future__ import annotations

from typing import Any, Final, Literal, cast, get_args

from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.guidelines import current_guidelines, seen_by
from judgepool.store.workspace import Workspace

BLIND_KEY: Final = "blind_grading"
SEARCH_KEY: Final = "search_judge"
SearchJudging = Literal["allowed", "review", "off"]
SEARCH_JUDGING: Final = get_args(SearchJudging)


def blind_grading(ws: Workspace) -> bool:
    """Whether annotators grade blind in ``ws`` (True unless set off)."""
    return ws.setting(BLIND_KEY, True) is not False


def set_blind_grading(ws: Workspace, blind: bool) -> None:
    """Turn blind grading on or off for every annotator of ``ws`` (one transaction)."""
    with ws.write() as conn:
        ws.put_setting(conn, BLIND_KEY, blind)


def search_judging(ws: Workspace) -> SearchJudging:
    """What search and judge may do in ``ws`` (``allowed`` unless set)."""
    mode = ws.setting(SEARCH_KEY, "allowed")
    return cast(SearchJudging, mode) if mode in SEARCH_JUDGING else "allowed"


def set_search_judging(ws: Workspace, mode: str) -> None:
    """Set what search and judge may do for every annotator of ``ws``."""
    if mode not in SEARCH_JUDGING:
        choices = ", ".join(quoted(choice) for choice in SEARCH_JUDGING)
        raise InputError(f"search and judge is one of {choices}, not {quoted(mode)}")
    with ws.write() as conn:
        ws.put_setting(conn, SEARCH_KEY, mode)


def workspace_settings(ws: Workspace) -> dict[str, Any]:
    """The settings people may read or change, by name: blind grading, search
    and judge, the grade scale and labels, the default consensus rule and
    contract, and the guidelines (None, or their digest, first line, size,
    when they were set and who was shown them)."""
    guidelines = current_guidelines(ws)
    return {
        "blind": blind_grading(ws),
        "search_judge": search_judging(ws),
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
