"""The checks an ID, a name or a source passes where a user gives one to the
workspace (``judge``, imports, pools, roles), shared by the command line and
the app so both refuse the same things with the same words.

The grammar itself is `judgepool.core.terms.tokens`; this module adds what the
workspace knows: whether it holds a query, a document or an annotator (and
which known ones are closest when it does not), and which provenance a user
may claim. Every value is named in messages through `judgepool.display.quoted`.

An annotator name entering the workspace goes through `annotator_name`: a
name it already holds is used as stored (names stored before these rules
stay usable); a new one is stored in Unicode's NFC (``é`` typed as e and a
combining accent is the same name as ``é``), at most `MAX_ANNOTATOR_NAME`
characters, and refused when it looks like a name the workspace holds
(`judgepool.core.team.confusables`: ``alicе`` with a Cyrillic ``е`` next to
``alice``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from judgepool.core.team.confusables import confusable, lookalike_characters
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.tokens import RESERVED_PREFIXES, id_problem, name_problem, reserved_name
from judgepool.display import quoted
from judgepool.services.closest import closest
from judgepool.store import holdings
from judgepool.store.holdings import IdKind
from judgepool.store.workspace import Workspace

HUMAN_SOURCE: Final = "human"
MODEL_PREFIX: Final = "model:"
# The longest new annotator name, in characters (after NFC). Names are shown
# whole in the app's tables and lines (agreement pairs, progress, the grade
# screen's info line) and stored on every ledger event: 64 holds any real name
# or handle (an e-mail address's local part is at most 64 by RFC 5321).
MAX_ANNOTATOR_NAME: Final = 64


def check_id(kind: IdKind, value: str) -> None:
    """Refuse a query or document ID the TREC formats cannot carry."""
    problem = id_problem(value)
    if problem is not None:
        raise InputError(f"{kind} ID {quoted(value)} cannot be used: {problem}")


def check_name(what: str, value: str) -> None:
    """Refuse a name (``what``: annotator, run, pool...) with control characters,
    surrounding spaces, or empty."""
    problem = name_problem(value)
    if problem is not None:
        raise InputError(f"{what} name {quoted(value)} cannot be used: {problem}")


def check_annotator_name(value: str) -> None:
    """A name a user may grade or import under: a valid name, and not one that
    would pass for provenance (``import:…`` marks what a qrels import
    recorded, ``model:…`` a model's grades)."""
    check_name("annotator", value)
    if reserved_name(value):
        prefixes = " or ".join(repr(p) for p in RESERVED_PREFIXES)
        raise InputError(
            f"annotator name {quoted(value)} cannot be used: names starting with {prefixes} "
            "are reserved for where judgments come from; choose another name"
        )


def annotator_name(ws: Workspace, value: str) -> str:
    """The name to record for ``value`` given as an annotator: the name the
    workspace holds for it, or ``value`` in NFC when it is new. A new name is
    refused when it is too long or looks like one the workspace holds."""
    check_annotator_name(value)
    known = known_annotator_name(ws, value)
    if known is not None:
        return known
    name = unicodedata.normalize("NFC", value)
    if len(name) > MAX_ANNOTATOR_NAME:
        raise InputError(
            f"annotator name {quoted(name[:MAX_ANNOTATOR_NAME])}… cannot be used: it is "
            f"{len(name)} characters long, and names are at most {MAX_ANNOTATOR_NAME}"
        )
    for existing in holdings.annotator_names(ws.conn):
        if confusable(name, existing):
            shown = lookalike_characters(name)
            holding = f" (it holds {', '.join(shown)})" if shown else ""
            raise InputError(
                f"annotator name {quoted(name)} cannot be used: it looks like the "
                f"annotator {quoted(existing)} the workspace already has{holding}; "
                f"use {quoted(existing)}, or choose a name that looks different"
            )
    return name


def annotator_names(ws: Workspace, values: Sequence[str]) -> list[str]:
    """`annotator_name` of each of ``values``, which must not look like one
    another either (two new names given together)."""
    names = [annotator_name(ws, value) for value in values]
    for index, name in enumerate(names):
        for other in names[:index]:
            if confusable(name, other):
                raise InputError(
                    f"annotator names {quoted(other)} and {quoted(name)} look alike; "
                    "choose names that look different"
                )
    return names


def known_annotator_name(ws: Workspace, value: str) -> str | None:
    """The name the workspace holds for ``value``: itself, or the same name in
    another Unicode normal form (NFC and NFD write ``é`` differently); None
    when it holds neither."""
    if not storable(value):
        return None
    conn = ws.conn
    if holdings.holds_annotator(conn, value):
        return value
    name = unicodedata.normalize("NFC", value)
    if name != value and holdings.holds_annotator(conn, name):
        return name
    for existing in holdings.annotator_names(conn):
        if unicodedata.normalize("NFC", existing) == name:
            return existing
    return None


def check_user_source(source: str) -> None:
    """What ``judge --source`` may claim: ``human`` or ``model:NAME``. Only a
    qrels import records ``import:`` sources."""
    if source == HUMAN_SOURCE:
        return
    if source.startswith(MODEL_PREFIX):
        model = source[len(MODEL_PREFIX) :]
        problem = name_problem(model)
        if problem is None:
            return
        raise InputError(f"source {quoted(source)} cannot be used: the model's name: {problem}")
    raise InputError(
        f"source {quoted(source)} cannot be used: give 'human' or 'model:NAME' "
        "('import:' sources are recorded by importing a qrels file only)"
    )


def _suggestion(value: str, known: list[str]) -> str:
    if not known:
        return ""
    return "; closest known: " + ", ".join(quoted(k) for k in known)


def check_known_item(ws: Workspace, query_id: str, doc_id: str) -> None:
    """Refuse a query or document the workspace does not hold (see
    `judgepool.store.holdings`), naming the closest IDs it does hold."""
    conn = ws.conn
    if holdings.holds_item(conn, query_id, doc_id):
        return
    items: tuple[tuple[IdKind, str], ...] = (("query", query_id), ("document", doc_id))
    for kind, value in items:
        if holdings.holds(conn, kind, value):
            continue
        near = closest(value, holdings.similar_ids(conn, kind, value))
        raise InputError(
            f"the workspace holds no {kind} {quoted(value)} (not imported, in no run, pool "
            f"or judgment){_suggestion(value, near)}. Check the ID, or give --allow-new "
            f"to judge a {kind} the workspace does not hold yet",
            str(ws.path),
        )


def storable(text: str) -> bool:
    """Whether SQLite can store (or look up) ``text``: no lone surrogate, which
    is what a byte that is not UTF-8 becomes in argv or a file name."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(what: str, value: str) -> None:
    """Refuse free text (a note) that cannot be stored: bytes that are not UTF-8."""
    if not storable(value):
        raise InputError(
            f"the {what} {quoted(value)} holds bytes that are not UTF-8; write it in UTF-8"
        )


def storable_path(path: str | Path) -> str:
    """A file's path as text to record (a run's source): as it is when it is
    UTF-8, else with each byte that is not shown as ``\\xNN``."""
    text = str(path)
    if storable(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def check_known_annotator(ws: Workspace, name: str) -> None:
    """Refuse an annotator the workspace has never seen, naming the closest ones."""
    # A name SQLite cannot store cannot be stored there: no lookup needed.
    if storable(name) and holdings.holds_annotator(ws.conn, name):
        return
    names = holdings.annotator_names(ws.conn)
    near = closest(name, names)
    listed = "" if names else "; it has no annotators yet"
    raise InputError(
        f"the workspace has no annotator {quoted(name)}{_suggestion(name, near)}{listed}. "
        "An annotator is known once they have graded, imported judgments or been added",
        str(ws.path),
    )
