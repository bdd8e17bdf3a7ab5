"""The rater a ``prelabel`` model is recorded as, and taking its labels back.

``--model NAME`` makes the rater ``model:NAME``, a name shown in every table
and stored on every event like an annotator's, so NAME passes the rules an
annotator's name passes (`judgepool.services.entry_checks.annotator_name`):
no control characters or surrounding spaces; a rater the workspace holds is
used as stored (and so stays usable whatever it is); a new one is stored in
Unicode's NFC, is at most `MAX_ANNOTATOR_NAME` characters after the prefix,
and is refused when it looks like a model the workspace holds (``judgе``
with a Cyrillic ``е`` next to ``judge``: `judgepool.core.team.confusables`). The
name sent to the endpoint is NAME as given: that is the server's name for it.

``--withdraw NAME`` takes back every current label of ``model:NAME``
(`judgepool.store.model_withdrawal`): appended events, nothing deleted.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from judgepool.core.team.confusables import confusable, lookalike_characters
from judgepool.core.team.raters import MODEL_PREFIX
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.closest import closest
from judgepool.services.entry_checks import MAX_ANNOTATOR_NAME, check_name, known_annotator_name
from judgepool.store import holdings
from judgepool.store.model_withdrawal import withdraw_labels
from judgepool.store.workspace import Workspace


def model_rater(ws: Workspace, model: str) -> str:
    """The rater ``model:NAME`` for ``--model NAME`` (see the module), or
    InputError saying which rule NAME breaks."""
    known = known_annotator_name(ws, MODEL_PREFIX + model)
    name = unicodedata.normalize("NFC", model)
    # the length first: a name of thousands of characters is not quoted whole
    if known is None and len(name) > MAX_ANNOTATOR_NAME:
        raise InputError(
            f"model name {quoted(name[:MAX_ANNOTATOR_NAME])}… cannot be used: it is "
            f"{len(name):,} characters long, and a model's name, like an annotator's, is at "
            f"most {MAX_ANNOTATOR_NAME}"
        )
    check_name("model", model)
    if known is not None:
        return known
    rater = MODEL_PREFIX + name
    for existing in holdings.annotator_names(ws.conn):
        if confusable(rater, existing):
            shown = lookalike_characters(name)
            holding = f" (it holds {', '.join(shown)})" if shown else ""
            raise InputError(
                f"model name {quoted(name)} cannot be used: it looks like the rater "
                f"{quoted(existing)} the workspace already has{holding}; give that name, or "
                "one that looks different"
            )
    return rater


def _model_raters(ws: Workspace) -> list[str]:
    return [name for name in holdings.annotator_names(ws.conn) if name.startswith(MODEL_PREFIX)]


@dataclass(frozen=True)
class Withdrawal:
    """What ``--withdraw`` did: the rater and the labels it took back."""

    rater: str
    withdrawn: int


def withdraw_model(ws: Workspace, model: str) -> Withdrawal:
    """Take back every current label of the rater ``model:NAME`` (NAME as
    ``--model`` takes it), in one transaction. Refused, naming the models the
    workspace holds, when it has never held a label of that model."""
    rater = known_annotator_name(ws, MODEL_PREFIX + model)
    if rater is None:
        models = _model_raters(ws)
        # likeness of the names alone: every rater shares the prefix
        near = closest(model, [name.removeprefix(MODEL_PREFIX) for name in models])
        listed = ", ".join(quoted(MODEL_PREFIX + name) for name in near) or ", ".join(
            quoted(name) for name in models
        )
        which = "closest" if near else "models it holds"
        hint = f" ({which}: {listed})" if models else " (it holds no model's labels)"
        raise InputError(
            f"--withdraw {quoted(model)}: the workspace has no rater "
            f"{quoted(MODEL_PREFIX + model)}{hint}; give NAME as --model gave it",
            str(ws.path),
        )
    return Withdrawal(rater, withdraw_labels(ws, rater))
