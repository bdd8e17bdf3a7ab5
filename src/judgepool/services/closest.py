"""The known IDs or names closest to one that was refused, for "did you mean".

difflib's ratio gives good suggestions but costs tens of microseconds per
candidate; over hundreds of thousands of IDs that is seconds. Candidates are
first ranked by how much of their start and end they share with the given
text (cheap), and only the best few are compared with difflib.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Final

_SHORTLIST: Final = 300
_CUTOFF: Final = 0.6


def _common_prefix(a: str, b: str) -> int:
    size = min(len(a), len(b))
    index = 0
    while index < size and a[index] == b[index]:
        index += 1
    return index


def _shared_ends(text: str, candidate: str) -> int:
    """Length of the common prefix plus that of the common suffix."""
    return _common_prefix(text, candidate) + _common_prefix(text[::-1], candidate[::-1])


def closest(text: str, candidates: Iterable[str], count: int = 3) -> list[str]:
    """Up to ``count`` candidates most like ``text`` (best first), none unlike it.

    Likeness is difflib's ratio (at least 0.6, as `difflib.get_close_matches`,
    or one character in two for a two-character text);
    among equally alike candidates, the one sharing more of its start and end
    with ``text`` comes first ("1030330": "1030303" before "1037033")."""
    pool = [c for c in set(candidates) if c != text]
    if len(pool) > _SHORTLIST:
        pool.sort(key=lambda c: (-_shared_ends(text, c), abs(len(c) - len(text)), c))
        pool = pool[:_SHORTLIST]
    # One character changed in a two-character ID is still a likely typo.
    cutoff = min(_CUTOFF, (len(text) - 1) / len(text)) if len(text) >= 2 else _CUTOFF
    matcher = difflib.SequenceMatcher(b=text, autojunk=False)
    scored: list[tuple[float, int, str]] = []
    for candidate in pool:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() < cutoff or matcher.quick_ratio() < cutoff:
            continue
        ratio = matcher.ratio()
        if ratio >= cutoff:
            scored.append((-ratio, -_shared_ends(text, candidate), candidate))
    return [candidate for _, _, candidate in sorted(scored)[:count]]
