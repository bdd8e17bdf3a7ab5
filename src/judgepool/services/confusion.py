"""A model's grades against the people's, per workspace (`judgepool.core.confusion`):
for ``agreement --confusion model:NAME``, the app's agreement screen and
``compare --prior model:NAME``."""

from __future__ import annotations

from judgepool.core.confusion import Confusion, confusion
from judgepool.core.errors import InputError
from judgepool.core.raters import MODEL_PREFIX
from judgepool.display import quoted
from judgepool.store.ratings import RatingColumns, current_ratings
from judgepool.store.workspace import Workspace


def _models(ratings: RatingColumns) -> list[str]:
    return sorted(name for name, kind in ratings.kinds.items() if kind == "model")


def _table(ws: Workspace, ratings: RatingColumns, rater: str) -> Confusion:
    people = {name for name, kind in ratings.kinds.items() if kind == "person"}
    by_item: dict[tuple[str, str], tuple[int | None, list[tuple[str, int]]]] = {}
    for query_id, doc_id, who, grade in zip(
        ratings.query_ids, ratings.doc_ids, ratings.raters, ratings.grades, strict=True
    ):
        model_grade, persons = by_item.get((query_id, doc_id), (None, []))
        if who == rater:
            model_grade = grade
        elif who in people:
            persons = [*persons, (who, grade)]
        by_item[(query_id, doc_id)] = (model_grade, persons)
    pairs: list[tuple[int, int]] = []
    items = 0
    seen: set[str] = set()
    for model_grade, persons in by_item.values():
        if model_grade is None or not persons:
            continue
        items += 1
        for who, grade in persons:
            seen.add(who)
            pairs.append((grade, model_grade))
    return confusion(rater, list(ws.scale.grades), pairs, sorted(seen), items)


def model_confusion(ws: Workspace, rater: str) -> Confusion:
    """The person-by-model table of ``rater`` (``model:NAME``); refused when
    the name is not a model's or the model holds no grade."""
    if not rater.startswith(MODEL_PREFIX):
        raise InputError(f"--confusion takes a model, model:NAME; got {quoted(rater)}")
    ratings = current_ratings(ws)
    if rater not in ratings.kinds:
        known = ", ".join(quoted(m) for m in _models(ratings)) or "none"
        raise InputError(
            f"the workspace holds no grade of {quoted(rater)} (models with grades: {known}); "
            "label with judgepool prelabel WS --model NAME --endpoint URL"
        )
    return _table(ws, ratings, rater)


def every_model_confusion(ws: Workspace) -> list[Confusion]:
    """The table of every model with grades in the workspace, by name."""
    ratings = current_ratings(ws)
    return [_table(ws, ratings, rater) for rater in _models(ratings)]
