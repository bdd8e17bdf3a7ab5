"""What an assignment changes in each annotator's queue against the one it
replaces or extends: the items each keeps, gets and loses, and of those lost
the ones they had already graded that now are someone else's (done work
handed out again: assigning after the pool grew used to move it).

Plain rows: (annotator, query, doc) of the assignment before and after, and
the rows before whose annotator holds a grade of the item.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Row = tuple[str, str, str]  # (annotator, query, doc)


@dataclass(frozen=True)
class Moved:
    """One annotator's queue, before and after."""

    annotator: str
    kept: int
    added: int
    removed: int
    # of the removed, items they had graded that the new assignment gives others
    graded_to_others: int


def moves(
    annotators: Sequence[str],
    before: Iterable[Row],
    after: Iterable[Row],
    graded_before: Iterable[Row],
) -> tuple[Moved, ...]:
    """Per annotator (``annotators`` first, in order, then anyone else of the
    rows, by name), what moved from ``before`` to ``after``."""
    old: dict[str, set[tuple[str, str]]] = {}
    new: dict[str, set[tuple[str, str]]] = {}
    for who, query_id, doc_id in before:
        old.setdefault(who, set()).add((query_id, doc_id))
    given: set[tuple[str, str]] = set()
    for who, query_id, doc_id in after:
        new.setdefault(who, set()).add((query_id, doc_id))
        given.add((query_id, doc_id))
    graded: dict[str, set[tuple[str, str]]] = {}
    for who, query_id, doc_id in graded_before:
        graded.setdefault(who, set()).add((query_id, doc_id))
    named = list(dict.fromkeys(annotators))
    everyone = named + sorted((set(old) | set(new)) - set(named))
    found = []
    for who in everyone:
        mine_before, mine_after = old.get(who, set()), new.get(who, set())
        lost = mine_before - mine_after
        others = {item for item in lost & graded.get(who, set()) if item in given}
        found.append(
            Moved(
                who,
                len(mine_before & mine_after),
                len(mine_after - mine_before),
                len(lost),
                len(others),
            )
        )
    return tuple(found)
