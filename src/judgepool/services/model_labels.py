"""A model's grades as evidence for the probable verdicts (``compare --prior
model:NAME``): read from a workspace, where they are the rater ``model:NAME``
(`judgepool.store.ratings`), or from a qrels file of the model's grades
(``--labels FILE``). Either way they are evidence about the holes, never
judgments: with a workspace, the judgments they are calibrated on leave them
out (`judgepool.services.judgments_source.workspace_source`).
"""

from __future__ import annotations

from pathlib import Path

from judgepool.core.holes.priors import ModelLabels
from judgepool.core.team.raters import MODEL_PREFIX
from judgepool.core.terms.contract import Scale
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.formats.trec import read_qrels
from judgepool.store import model_replies
from judgepool.store.ratings import current_ratings
from judgepool.store.workspace import Workspace


def model_source(name: str) -> str:
    """The source (and rater) a model's grades are recorded under."""
    return MODEL_PREFIX + name


def workspace_labels(ws: Workspace, name: str) -> ModelLabels:
    """The current grade of every item the rater ``model:NAME`` graded;
    refused when it graded none."""
    ratings = current_ratings(ws)
    rater = model_source(name)
    labels: dict[str, dict[str, int]] = {}
    for query_id, doc_id, who, grade in zip(
        ratings.query_ids, ratings.doc_ids, ratings.raters, ratings.grades, strict=True
    ):
        if who == rater:
            labels.setdefault(query_id, {})[doc_id] = grade
    if not labels:
        models = sorted(r for r in ratings.kinds if r.startswith(MODEL_PREFIX))
        known = ", ".join(quoted(m) for m in models) if models else "none"
        raise InputError(
            f"the workspace holds no grade of {quoted(rater)} (models with grades: {known}); "
            "record its labels (judgepool import WS qrels FILE --source model:NAME), or give "
            "them with --labels FILE"
        )
    return ModelLabels(name, labels)


def file_labels(path: str | Path, name: str, scale: Scale) -> ModelLabels:
    """A model's grades from a qrels file (plain or gzip), on ``scale``."""
    if not Path(path).exists():
        raise InputError("no such file", str(path))
    return ModelLabels(name, read_qrels(path, scale).judgments)


def query_model_grades(ws: Workspace, query_id: str) -> dict[str, list[tuple[str, int]]]:
    """The models' labels of one query's documents (document -> [(model:NAME,
    grade)]), for the lead's side-by-side view."""
    return model_replies.query_model_grades(ws, query_id)
