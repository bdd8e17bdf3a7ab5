"""The checks an ID, a name or a source passes where a user gives one to the
workspace (``judge``, imports, pools, roles), shared by the command line and
the app so both refuse the same things with the same words.

The grammar itself is `judgepool.core.tokens`; this module adds what the
workspace knows: whether it holds a query, a document or an annotator (and
which known ones are closest when it does not), and which provenance a user
may claim. Every value is named in messages through `judgepool.display.quoted`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from judgepool.core.errors import InputError
from judgepool.core.tokens import RESERVED_PREFIXES, id_problem, name_problem, reserved_name
from judgepool.display import quoted
from judgepool.services.closest import closest
from judgepool.store import holdings
from judgepool.store.holdings import IdKind
from judgepool.store.workspace import Workspace

HUMAN_SOURCE: Final = "human"
MODEL_PREFIX: Final = "model:"


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
