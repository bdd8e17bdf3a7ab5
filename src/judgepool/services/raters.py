"""Which raters a team report compares (`judgepool.core.team.raters`): the people
who graded, unless raters are named (``--annotators``); a name must be a
rater with a current grade, once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from judgepool.core.team.raters import RaterKind
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.services.closest import closest


def compared_raters(kinds: Mapping[str, RaterKind], wanted: Sequence[str] | None) -> list[str]:
    """``wanted`` (checked), or every person among ``kinds`` (by name)."""
    known = sorted(kinds)
    if wanted is None:
        return [name for name in known if kinds[name] == "person"]
    chosen: list[str] = []
    for name in wanted:
        if name not in kinds:
            near = closest(name, known)
            hint = "; closest: " + ", ".join(quoted(n) for n in near) if near else ""
            listed = ", ".join(quoted(n) for n in known) or "none yet"
            raise InputError(
                f"no annotator {quoted(name)} has a current grade{hint}. "
                f"Annotators with grades: {listed}"
            )
        if name in chosen:
            raise InputError(f"annotator {quoted(name)} is listed twice")
        chosen.append(name)
    return chosen
