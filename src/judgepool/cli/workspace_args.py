"""Arguments of the workspace commands that are more than a string: a grade
(``judge``) and grade labels (``init --labels``).

Numbers follow the one grammar of `judgepool.core.terms.tokens`: ASCII digits
only, so ``１`` (full width) or ``1_0`` is refused here as in every file.
"""

from __future__ import annotations

from judgepool.core.terms.errors import InputError
from judgepool.core.terms.tokens import parse_int
from judgepool.display import quoted


def parse_grade(text: str) -> int | None:
    """A grade argument: an integer, or ``unsure`` (returned as None)."""
    if text.strip().lower() == "unsure":
        return None
    value = parse_int(text.strip())
    if value is None:
        raise InputError(f"grade must be an integer of the scale or 'unsure', got {quoted(text)}")
    return value


def parse_labels(text: str | None) -> dict[int, str] | None:
    """``0=Bad,1=Fair,2=Good`` as {grade: label}; None when not given."""
    if not text:
        return None
    labels: dict[int, str] = {}
    for part in text.split(","):
        grade, sep, label = part.partition("=")
        value = parse_int(grade.strip())
        if not sep or value is None or not label.strip():
            raise InputError(f"labels look like '0=Bad,1=Fair,2=Good'; cannot read {quoted(part)}")
        labels[value] = label.strip()
    return labels
