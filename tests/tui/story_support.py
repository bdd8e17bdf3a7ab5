"""The demo's story, for the app's tests: the demo workspace as
``judgepool demo`` builds it from ``sample_data/``, and the true grades of its
holes.

The demo (`judgepool.services.demo`) is a DL19 slice whose old runs' top 10
is judged and whose modern runs have holes: at the start, comparisons with a
modern run could flip. ``sample_data/dl19/hidden.qrels`` (not imported)
holds every hole's true grade, so a test can judge the holes as a careful
annotator would (`true_grade`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

from judgepool.core.terms.contract import Scale
from judgepool.formats.trec import read_qrels
from judgepool.services.demo import ensure_demo_workspace

SAMPLE_DATA: Final = Path(__file__).resolve().parents[2] / "sample_data"
HIDDEN: Final = SAMPLE_DATA / "dl19" / "hidden.qrels"
# every judgment of the story: in settle order the demo settles its first
# pair after 15 (the order works on the undecided pair, and the probable
# ones settle on the way: README, the demo's story)
STORY_LENGTH: Final = 20


def build_story_workspace(folder: Path) -> Path:
    """The demo workspace, built in ``folder`` (``folder/workspaces/demo.sqlite``)."""
    return ensure_demo_workspace(folder, sample_data=SAMPLE_DATA)


@cache
def _hidden() -> dict[str, dict[str, int]]:
    return {q: dict(d) for q, d in read_qrels(HIDDEN, Scale.parse("0..3")).judgments.items()}


def true_grade(query_id: str, doc_id: str) -> int:
    """A hole's true grade (from the hidden qrels); KeyError for a document
    the demo already holds a judgment of."""
    return _hidden()[query_id][doc_id]
