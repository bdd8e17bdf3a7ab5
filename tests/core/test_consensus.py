"""The consensus rules on plain rows: which grade stands for an item under each
rule, what a disagreement is, and the judged universe they make (the store's
reading of these rows is tested in tests/store/test_ws_ledger.py)."""

from __future__ import annotations

import random

import pytest

from judgepool.core.team.consensus import (
    CONSENSUS_RULES,
    HeldGrade,
    ItemGrades,
    consensus,
    differ,
    disagreement,
    gap,
    judged_grades,
    low_median,
    resolve,
    used_grade,
)


def person(rater: str, grade: int, since: int) -> HeldGrade:
    return HeldGrade(rater, grade, since, "human")


def imported(rater: str, grade: int, since: int) -> HeldGrade:
    """A grade not a person's: a model's (rater ``model:…``) or an import's."""
    source = rater if rater.startswith(("model:", "import:")) else f"import:{rater}"
    return HeldGrade(rater, grade, since, source)


def model(name: str, grade: int, since: int) -> HeldGrade:
    return HeldGrade(f"model:{name}", grade, since, f"model:{name}")


def item(doc_id: str, *grades: HeldGrade, adjudications: tuple[HeldGrade, ...] = ()) -> ItemGrades:
    return ItemGrades("q1", doc_id, grades, adjudications)


def under_each_rule(found: ItemGrades) -> dict[str, int | None]:
    return {rule: resolve(found, rule) for rule in CONSENSUS_RULES}


def test_low_median() -> None:
    assert low_median([3]) == 3
    assert low_median([0, 3, 1]) == 1
    assert low_median([0, 3]) == 0
    assert low_median([2, 1, 3, 0]) == 1
    assert low_median([2, 2, 3, 3]) == 2


def test_the_rules_are_named_in_their_order() -> None:
    assert CONSENSUS_RULES == ("latest", "median", "adjudicated")


def test_grades_that_agree_stand_under_every_rule() -> None:
    solo = item("solo", person("alice", 2, 1))
    agreed = item("agreed", person("alice", 1, 1), imported("import:x", 1, 2))
    assert under_each_rule(solo) == {"latest": 2, "median": 2, "adjudicated": 2}
    assert under_each_rule(agreed) == {"latest": 1, "median": 1, "adjudicated": 1}
    assert not solo.disagree and not agreed.disagree


def test_latest_is_the_grade_given_last_whatever_order_the_rows_come_in() -> None:
    # the rows are in the store's order (by rater); the rule reads `since`
    trio = item("trio", person("alice", 3, 10), person("bob", 1, 30), person("carol", 2, 20))
    assert resolve(trio, "latest") == 1
    assert [held.rater for held in trio.ordered] == ["alice", "carol", "bob"]


def test_median_takes_the_lower_middle_grade_of_an_even_count() -> None:
    pair = item("pair", person("alice", 3, 1), person("bob", 0, 2))
    assert resolve(pair, "median") == 0
    four = item("four", *(person(f"r{i}", g, i) for i, g in enumerate((3, 2, 0, 1))))
    assert resolve(four, "median") == 1


def test_the_latest_adjudication_stands_over_every_grade() -> None:
    settled = item(
        "trio",
        person("alice", 3, 1),
        person("bob", 1, 2),
        adjudications=(person("judy", 2, 9), person("lead", 0, 5)),
    )
    assert settled.adjudicated == 2
    # an adjudication is not an annotation: latest and median never read it
    assert under_each_rule(settled) == {"latest": 1, "median": 1, "adjudicated": 2}


def test_under_adjudicated_people_stand_over_imports_and_models() -> None:
    one_person = item("d1", imported("import:nist", 3, 1), person("alice", 1, 2))
    assert resolve(one_person, "adjudicated") == 1
    agreeing_people = item(
        "d2", person("alice", 2, 1), imported("model:x", 0, 2), person("bob", 2, 3)
    )
    assert resolve(agreeing_people, "adjudicated") == 2
    # people who disagree, with nobody settling it: left out
    people_differ = item("d3", person("alice", 2, 1), person("bob", 0, 2), imported("m", 2, 3))
    assert resolve(people_differ, "adjudicated") is None
    # no person graded it: its grades must agree to stand
    models_differ = item("d4", imported("model:x", 3, 1), imported("model:y", 2, 2))
    assert resolve(models_differ, "adjudicated") is None
    models_agree = item("d5", imported("model:x", 3, 1), imported("model:y", 3, 2))
    assert resolve(models_agree, "adjudicated") == 3


def test_an_item_only_adjudicated_is_judged_under_adjudicated_alone() -> None:
    settled_only = item("d1", adjudications=(person("judy", 2, 4),))
    assert under_each_rule(settled_only) == {"latest": None, "median": None, "adjudicated": 2}


def test_an_unknown_rule_is_refused() -> None:
    pair = item("pair", person("alice", 3, 1), person("bob", 0, 2))
    with pytest.raises(ValueError, match="unknown consensus rule"):
        resolve(pair, "majority")  # type: ignore[arg-type]


def test_a_disagreement_says_how_each_rule_resolves_it() -> None:
    trio = item(
        "trio",
        person("bob", 1, 2),
        person("alice", 3, 1),
        imported("import:x", 2, 3),
        adjudications=(person("lead", 0, 7), person("judy", 1, 5)),
    )
    found = disagreement(trio)
    assert found.grades == (("alice", 3), ("bob", 1), ("import:x", 2))
    assert found.adjudicators == ("judy", "lead")  # in the order they settled it
    assert (found.latest, found.median, found.adjudicated) == (2, 2, 0)
    assert {rule: found.resolved(rule) for rule in CONSENSUS_RULES} == under_each_rule(trio)
    assert found.people == ("alice", "bob")
    assert found.settled and found.between_people


def test_a_disagreement_with_an_import_alone_is_not_between_people() -> None:
    found = disagreement(item("d1", imported("import:nist", 3, 1), person("alice", 1, 2)))
    assert not found.between_people and not found.settled
    assert (found.latest, found.median, found.adjudicated) == (1, 1, 1)


def test_the_judged_universe_under_each_rule() -> None:
    items = [
        item("agreed", person("alice", 1, 1), person("bob", 1, 2)),
        item("pair", person("alice", 3, 3), person("bob", 0, 4)),
        item("trio", person("alice", 3, 5), person("bob", 1, 6), person("carol", 2, 7),
             adjudications=(person("judy", 1, 8),)),
    ]  # fmt: skip
    latest = consensus(items, "latest")
    assert latest.judgments == {"q1": {"agreed": 1, "pair": 0, "trio": 2}}
    assert [found.doc_id for found in latest.disagreements] == ["pair", "trio"]
    assert latest.unresolved == () and latest.judged == 3 and latest.rule == "latest"
    assert consensus(items, "median").judgments == {"q1": {"agreed": 1, "pair": 0, "trio": 2}}
    adjudicated = consensus(items, "adjudicated")
    assert adjudicated.judgments == {"q1": {"agreed": 1, "trio": 1}}
    assert [found.doc_id for found in adjudicated.unresolved] == ["pair"]
    assert adjudicated.disagreements == latest.disagreements  # the same under every rule
    assert consensus([], "latest").judgments == {}


def test_every_rule_gives_a_grade_some_rater_gave() -> None:
    rng = random.Random(11)
    for _ in range(500):
        grades = tuple(
            HeldGrade(
                f"r{i}",
                rng.randint(0, 3),
                rng.randint(1, 10**6),
                rng.choice(["human", "import:x", "model:m"]),
            )
            for i in range(rng.randint(1, 5))
        )
        found = ItemGrades("q", "d", grades)
        given = {held.grade for held in grades}
        for rule in CONSENSUS_RULES:
            grade = resolve(found, rule)
            assert grade is None or grade in given
        assert found.disagree == differ(held.grade for held in grades)
        if not found.disagree:
            assert set(under_each_rule(found).values()) == given


def test_grades_differ_and_their_gap() -> None:
    assert not differ([]) and not differ([2]) and not differ([1, 1])
    assert differ([1, 0, 1])
    assert gap([2]) == 0
    assert gap([0, 3, 1]) == 3


def test_a_grade_knows_its_source() -> None:
    assert person("alice", 1, 1).kind == "people" and person("alice", 1, 1).person
    assert imported("import:nist", 1, 1).kind == "imports"
    found = model("judge", 1, 1)
    assert found.kind == "models" and found.model == "judge" and not found.person
    # a rater named like a person whose event came from a model is a model's grade
    assert HeldGrade("bob", 0, 3, "model:x").model == "x"


def test_a_models_label_never_enters_overrides_or_fills_in_by_default() -> None:
    items = [
        # the model is the newest grade: under latest it used to override alice
        item("over-person", person("alice", 1, 1), model("judge", 3, 9)),
        item("over-import", imported("import:nist", 0, 1), model("judge", 3, 9)),
        item("over-adjudication", model("judge", 3, 9), adjudications=(person("judy", 0, 5),)),
        # a hole only the model labelled stays a hole
        item("hole", model("judge", 3, 9)),
    ]
    for rule in CONSENSUS_RULES:
        decided = consensus(items, rule)
        expected = {"over-person": 1, "over-import": 0}
        if rule == "adjudicated":
            expected["over-adjudication"] = 0
        assert decided.judgments == {"q1": expected}, rule
        assert decided.provenance.models == {}
        assert decided.provenance.unused == {"judge": (4, 1)}
        assert decided.unresolved == ()


def test_with_model_counts_its_label_only_where_nobody_else_graded() -> None:
    items = [
        item("graded", person("alice", 1, 1), model("judge", 3, 9)),
        item("hole", model("judge", 3, 9), model("other", 0, 10)),
        item("others-hole", model("other", 2, 4)),
    ]
    for rule in CONSENSUS_RULES:
        decided = consensus(items, rule, with_model="judge")
        assert decided.judgments == {"q1": {"graded": 1, "hole": 3}}, rule
        assert decided.provenance.people == 1
        assert decided.provenance.models == {"judge": 1}
        assert decided.provenance.unused == {"judge": (1, 0), "other": (2, 2)}
        assert decided.provenance.with_model == "judge"


def test_judged_grades_sets_the_models_aside() -> None:
    mixed = item("d", person("alice", 1, 1), model("judge", 3, 2), imported("import:x", 2, 3))
    assert judged_grades(mixed).grades == (person("alice", 1, 1), imported("import:x", 2, 3))
    alone = item("d", model("judge", 3, 2))
    assert judged_grades(alone).grades == ()
    assert judged_grades(alone, "judge").grades == (model("judge", 3, 2),)
    assert judged_grades(alone, "other").grades == ()
    untouched = item("d", person("alice", 1, 1))
    assert judged_grades(untouched) is untouched


def test_the_provenance_names_the_source_of_the_grade_the_rule_used() -> None:
    settled = item(
        "settled", person("alice", 3, 1), person("bob", 1, 2),
        adjudications=(person("judy", 2, 9),),
    )  # fmt: skip
    agreed = item("agreed", imported("import:nist", 2, 1), person("alice", 2, 2))
    newer_import = item("newer", person("alice", 1, 1), imported("import:nist", 3, 2))
    assert used_grade(settled, "adjudicated") == person("judy", 2, 9)
    assert used_grade(settled, "latest") == person("bob", 1, 2)
    # people and NIST agree: the grade rests on people
    assert used_grade(agreed, "latest") == person("alice", 2, 2)
    assert used_grade(newer_import, "latest") == imported("import:nist", 3, 2)
    decided = consensus([settled, agreed, newer_import], "adjudicated")
    assert (decided.provenance.people, decided.provenance.imports) == (2, 0)
    assert decided.provenance.adjudications == 1
    latest = consensus([settled, agreed, newer_import], "latest")
    assert (latest.provenance.people, latest.provenance.imports) == (2, 1)
    assert latest.provenance.adjudications == 0
    assert latest.provenance.to_dict() == {
        "people": 2, "imports": 1, "adjudications": 0, "models": {},
        "with_model": None, "origin": "workspace",
    }  # fmt: skip


def test_the_provenance_lines_say_what_was_used_and_what_was_not() -> None:
    items = [item("d1", person("alice", 1, 1)), item("d2", model("judge", 3, 2))]
    default = consensus(items, "latest").provenance
    assert default.line() == "1 grades: 1 people's, 0 imported, 0 adjudications"
    assert default.left_out_line() == (
        "model:judge's 1 label not used (1 on items nobody else graded: "
        "--with-model judge to count those)"
    )
    counted = consensus(items, "latest", with_model="judge").provenance
    assert counted.line() == (
        "2 grades: 1 people's, 0 imported, 0 adjudications, "
        "1 of model:judge's labels, on items nobody else graded"
    )
    assert counted.left_out_line() is None


def test_a_disagreement_with_a_model_resolves_as_the_judgments_do() -> None:
    found = disagreement(item("d1", person("alice", 1, 1), model("judge", 3, 2)))
    assert found.grades == (("alice", 1), ("model:judge", 3))
    assert (found.latest, found.median, found.adjudicated) == (1, 1, 1)
    only_models = disagreement(item("d2", model("judge", 3, 1), model("other", 0, 2)))
    assert (only_models.latest, only_models.median, only_models.adjudicated) == (None,) * 3
    decided = consensus([item("d2", model("judge", 3, 1), model("other", 0, 2))], "adjudicated")
    assert decided.unresolved == ()  # a hole, not a disagreement the rule left out
