"""The holes of a sample handed out (``judgepool assign --sample FILE``): every
hole the file lists (`judgepool.formats.sample_file`, as ``holes --sample``
wrote it) that is still open becomes an item of the assignment.

A sample's estimate needs every one of its holes graded
(`judgepool.services.sample`), so a listed hole that cannot be assigned
because it is not pooled is refused, naming its line, rather than passed
over; one already judged (or already in the assignment extended) needs no
one, and one outside ``--queries`` is left to another assignment: those are
counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judgepool.core.terms.errors import InputError
from judgepool.formats.sample_file import read_sample
from judgepool.store.open_files import refuse_workspace_file

Item = tuple[str, str]


@dataclass(frozen=True)
class SamplePick:
    """What the sample gave: ``taken`` of its ``listed`` holes assigned, the
    rest passed over by why (already judged, already assigned, not in
    --queries)."""

    path: str
    listed: int
    taken: int
    passed_over: dict[str, int]


def sample_pick(
    path: str | Path, pooled: Sequence[Item], why_not: dict[Item, str]
) -> tuple[list[Item], SamplePick]:
    """The sampled holes to assign: each listed hole of the file at ``path``
    that is ``pooled`` and has no reason in ``why_not`` not to be assigned."""
    refuse_workspace_file(path)
    sample = read_sample(path)
    known = set(pooled)
    taken: list[Item] = []
    passed: dict[str, int] = {}
    for hole in sample.holes:
        item = (hole.query_id, hole.doc_id)
        if item not in known:
            raise InputError(
                f"the sampled hole {hole.query_id!r} {hole.doc_id!r} is not pooled, so it "
                "cannot be assigned, and the sample's estimate needs every hole graded: pool "
                "the runs to the contract's k first (judgepool pool WS --depth K)",
                sample.path,
                hole.line,
            )
        reason = why_not.get(item)
        if reason is None:
            taken.append(item)
        else:
            passed[reason] = passed.get(reason, 0) + 1
    if not taken and not passed.get("already assigned"):
        whys = ", ".join(f"{count:,} {why}" for why, count in sorted(passed.items()))
        raise InputError(
            f"none of the sample's {len(sample.holes):,} holes is left to hand out ({whys}); "
            "once every one is graded, 'judgepool compare --sample FILE' estimates from it",
            sample.path,
        )
    return taken, SamplePick(sample.path, len(sample.holes), len(taken), passed)
