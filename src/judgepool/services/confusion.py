"""A model's grades against the people's, or an import's where no person
graded (`judgepool.core.team.confusion`), per workspace: for ``agreement
--confusion model:NAME``, the app's agreement screen and ``compare --prior
model:NAME``.

The raters' kinds are the store's (`judgepool.store.ratings`): an import is
qrels imported as ``import:FILE`` or under a name of their own, a person
anyone grading by hand; adjudications and other models are no reference.
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter

from judgepool.core.team.confusion import AGAINST, Against, Confusion, confusion
from judgepool.core.team.raters import MODEL_PREFIX
from judgepool.core.terms.errors import InputError
from judgepool.display import quoted
from judgepool.store.ratings import RatingColumns, current_ratings
from judgepool.store.workspace import Workspace


def _models(ratings: RatingColumns) -> list[str]:
    return sorted(name for name, kind in ratings.kinds.items() if kind == "model")


def _table(ws: Workspace, ratings: RatingColumns, rater: str, against: Against) -> Confusion:
    people = {name for name, kind in ratings.kinds.items() if kind == "person"}
    imports = {name for name, kind in ratings.kinds.items() if kind == "import"}
    use_people = against in ("both", "people")
    use_imports = against in ("both", "imports")
    person_pairs: list[tuple[int, int]] = []
    import_pairs: list[tuple[int, int]] = []
    person_items = import_items = 0
    seen_people: set[str] = set()
    seen_imports: set[str] = set()
    rows = zip(ratings.query_ids, ratings.doc_ids, ratings.raters, ratings.grades, strict=True)
    # the rows come sorted by item: each item's grades are one run of rows
    for _, graded in groupby(rows, key=itemgetter(0, 1)):
        item = [(who, grade) for _, _, who, grade in graded]
        labelled = next((grade for who, grade in item if who == rater), None)
        if labelled is None:
            continue
        persons = [(who, grade) for who, grade in item if who in people]
        imported = [(who, grade) for who, grade in item if who in imports]
        # a person's grade is the reference where there is one; an import's
        # stands in only where no person graded (under "both")
        if use_people and persons:
            person_items += 1
            seen_people.update(who for who, _ in persons)
            person_pairs += [(grade, labelled) for _, grade in persons]
        elif use_imports and imported:
            import_items += 1
            seen_imports.update(who for who, _ in imported)
            import_pairs += [(grade, labelled) for _, grade in imported]
    return confusion(
        rater,
        list(ws.scale.grades),
        person_pairs,
        sorted(seen_people),
        person_items,
        imported=import_pairs,
        imports=sorted(seen_imports),
        import_items=import_items,
        against=against,
    )


def _check_against(against: str) -> Against:
    for choice in AGAINST:
        if against == choice:
            return choice
    raise InputError(f"--against is one of {', '.join(AGAINST)}; got {quoted(against)}")


def model_confusion(ws: Workspace, rater: str, against: str = "both") -> Confusion:
    """The reference-by-model table of ``rater`` (``model:NAME``) against
    ``against`` (people, imports, or both: people where they graded, else
    imports); refused when the name is not a model's or the model holds no
    grade."""
    chosen = _check_against(against)
    if not rater.startswith(MODEL_PREFIX):
        raise InputError(f"--confusion takes a model, model:NAME; got {quoted(rater)}")
    ratings = current_ratings(ws)
    if rater not in ratings.kinds:
        known = ", ".join(quoted(m) for m in _models(ratings)) or "none"
        raise InputError(
            f"the workspace holds no grade of {quoted(rater)} (models with grades: {known}); "
            "label with judgepool prelabel WS --model NAME --endpoint URL"
        )
    return _table(ws, ratings, rater, chosen)


def every_model_confusion(ws: Workspace, against: str = "both") -> list[Confusion]:
    """The table of every model with grades in the workspace, by name."""
    chosen = _check_against(against)
    ratings = current_ratings(ws)
    return [_table(ws, ratings, rater, chosen) for rater in _models(ratings)]
