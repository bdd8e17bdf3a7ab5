"""The audit of a run: each of the nine finding kinds on crafted runs read from
real files, the coverage line, the ``--fail-on`` helper, and the audit reading
past every bad line."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.auditing.audit import (
    FINDING_KINDS,
    MAX_DISAGREEMENT_LINES,
    AuditReport,
    audit_run,
    failed,
)
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.types import RunEntry
from judgepool.formats.trec import read_qrels, read_run

EMPTY_FINDINGS: dict[str, list[object]] = {kind: [] for kind in FINDING_KINDS}


def write_lines(path: Path, lines: list[str], final_newline: bool = True) -> Path:
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    return path


def audit_files(
    tmp_path: Path,
    run_lines: list[str],
    qrels_lines: list[str],
    k: int,
    contract: Contract | None = None,
    scale: Scale | None = None,
    final_newline: bool = True,
) -> AuditReport:
    """Write the run and qrels to files, read them as the CLI does, and audit."""
    run_path = write_lines(tmp_path / "run.txt", run_lines, final_newline)
    qrels_path = write_lines(tmp_path / "qrels.txt", qrels_lines)
    judgments = read_qrels(qrels_path, scale or Scale()).judgments
    run = read_run(run_path, collect_errors=True)
    return audit_run(
        run.entries, judgments, k, contract, run=run.path, bad_lines=run.bad_lines, lines=run.lines
    )


def test_clean_run_has_every_list_empty(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path,
        [
            "q1 Q0 A 1 3.0 t",
            "q1 Q0 B 2 2.0 t",
            "q1 Q0 C 3 1.0 t",
            "q2 Q0 D 1 5.0 t",
            "q2 Q0 E 2 4.0 t",
        ],
        ["q1 0 A 3", "q1 0 B 1", "q1 0 C 0", "q2 0 D 2", "q2 0 E 0"],
        k=2,
    )
    assert report.to_dict() == {
        "run": str(tmp_path / "run.txt"),
        "k": 2,
        "lines": 5,
        "queries": 2,
        "coverage": {"judged_at_k": 1.0, "unjudged_at_k": 0},
        "findings": EMPTY_FINDINGS,
    }
    assert failed(report, FINDING_KINDS) == []


def test_bad_lines_are_all_collected_and_good_lines_kept(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path,
        [
            "q1 Q0 A 1 3.0 t",
            "# a comment",
            "",
            "q1 Q0 B 2 NaN t",
            "q1 Q0 C x 1.0 t",
            "q1 Q0 D 1.5 1.0 t",
            "q1 Q0 E 3 inf t",
            "q1 Q0 F 4",
            "q1 Q0 G 5 0.5 t",
            "q1 Q0 H 6",
        ],
        ["q1 0 A 1", "q1 0 G 1"],
        k=2,
        final_newline=False,
    )
    bad = report.findings.bad_lines
    assert [b.line for b in bad] == [4, 5, 6, 7, 8, 10]
    for finding, word in zip(
        bad, ["score", "rank", "rank", "score", "columns", "columns"], strict=True
    ):
        assert word in finding.message
    assert "'NaN'" in bad[0].message and "'1.5'" in bad[2].message
    assert report.lines == 10
    # the two good lines were audited: A and G are both judged, nothing else is wrong
    assert report.coverage.judged_at_k == 1.0
    assert report.findings.short_lists == ()
    assert report.to_dict()["findings"]["bad_lines"][0] == {"line": 4, "message": bad[0].message}


@pytest.mark.parametrize("final_newline", [True, False], ids=["newline", "no-newline"])
@pytest.mark.parametrize(
    ("last", "word"),
    [
        ("q1 Q0 Z 3 nan t", "score"),
        ("q1 Q0 Z three 0.1 t", "rank"),
        ("q1 Q0 Z 3 0.1", "columns"),
        ("q1", "columns"),
    ],
)
def test_a_bad_last_line_is_collected(
    tmp_path: Path, last: str, word: str, final_newline: bool
) -> None:
    report = audit_files(
        tmp_path,
        ["q1 Q0 A 1 2.0 t", "q1 Q0 B 2 1.0 t", last],
        ["q1 0 A 1"],
        k=2,
        final_newline=final_newline,
    )
    assert [b.line for b in report.findings.bad_lines] == [3]
    assert word in report.findings.bad_lines[0].message
    assert report.lines == 3
    assert failed(report, ["bad_lines"]) == ["bad_lines"]


def test_duplicates_list_every_line_and_use_the_entity(tmp_path: Path) -> None:
    run = [
        "q1 Q0 A 1 3.0 t",
        "q1 Q0 B 2 2.0 t",
        "q1 Q0 A 3 1.0 t",
        "q1 Q0 B 4 0.5 t",
        "q1 Q0 B 5 0.4 t",
        "q2 Q0 d1#1 1 2.0 t",
        "q2 Q0 d1#2 2 1.0 t",
    ]
    qrels = ["q1 0 A 1", "q1 0 B 2", "q2 0 d1 1"]
    plain = audit_files(tmp_path, run, qrels, k=3)
    assert plain.to_dict()["findings"]["duplicates"] == [
        {"query_id": "q1", "doc_id": "A", "lines": [1, 3]},
        {"query_id": "q1", "doc_id": "B", "lines": [2, 4, 5]},
    ]
    chunked = audit_files(tmp_path, run, qrels, k=3, contract=Contract(entity=r"([^#]+)#"))
    assert chunked.to_dict()["findings"]["duplicates"] == [
        {"query_id": "q1", "doc_id": "A", "lines": [1, 3]},
        {"query_id": "q1", "doc_id": "B", "lines": [2, 4, 5]},
        {"query_id": "q2", "doc_id": "d1", "lines": [6, 7]},
    ]
    # the chunks are judged through their entity: nothing unjudged either way round
    assert chunked.findings.unjudged == ()
    assert [u.doc_id for u in plain.findings.unjudged] == ["d1#1", "d1#2"]


UNJUDGED_RUN = [
    "q1 Q0 A 1 5.0 t",
    "q1 Q0 A 2 4.0 t",
    "q1 Q0 X 3 3.0 t",
    "q1 Q0 B 4 2.0 t",
    "q1 Q0 Y 5 1.0 t",
    "q2 Q0 Z 1 2.0 t",
    "q2 Q0 P 2 1.0 t",
    "q9 Q0 W 1 1.0 t",
]
UNJUDGED_QRELS = ["q1 0 A 2", "q1 0 B 1", "q1 0 C 0", "q2 0 P 1"]


def test_unjudged_ranks_count_after_duplicates_and_only_inside_top_k(tmp_path: Path) -> None:
    report = audit_files(tmp_path, UNJUDGED_RUN, UNJUDGED_QRELS, k=3)
    # q1 forms A, X, B, Y (the second A dropped): X is rank 2, Y rank 4 is past k;
    # q9 is unknown, so its documents are not listed one by one
    assert report.to_dict()["findings"]["unjudged"] == [
        {"query_id": "q1", "doc_id": "X", "rank": 2},
        {"query_id": "q2", "doc_id": "Z", "rank": 1},
    ]
    # q1: 2 judged of the top 3; q2: 1 judged of min(3, 2) returned
    assert report.coverage.judged_at_k == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert report.coverage.unjudged_at_k == 2


def test_coverage_agrees_with_scoring(tmp_path: Path) -> None:
    report = audit_files(tmp_path, UNJUDGED_RUN, UNJUDGED_QRELS, k=3)
    run = read_run(tmp_path / "run.txt")
    judgments = read_qrels(tmp_path / "qrels.txt", Scale()).judgments
    scored = evaluate(
        group_by_query(run.entries), judgments, Contract(k=3, unjudged="zero", duplicates="first")
    )
    assert report.coverage.judged_at_k == pytest.approx(scored.summary.judged_at_k)
    assert report.coverage.unjudged_at_k == scored.summary.unjudged_at_k


@pytest.mark.parametrize(("ties", "rank"), [("trec_eval", 1), ("docid", 2), ("rank", 2)])
def test_unjudged_rank_follows_the_tie_policy(tmp_path: Path, ties: str, rank: int) -> None:
    report = audit_files(
        tmp_path,
        ["q1 Q0 A 1 1.0 t", "q1 Q0 X 2 1.0 t"],
        ["q1 0 A 1"],
        k=2,
        contract=Contract(ties=ties),
    )
    assert report.to_dict()["findings"]["unjudged"] == [
        {"query_id": "q1", "doc_id": "X", "rank": rank}
    ]


def test_unknown_and_missing_queries_are_sorted(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path,
        ["q4 Q0 X 1 1.0 t", "q1 Q0 A 1 1.0 t", "q0 Q0 Y 1 1.0 t"],
        ["q1 0 A 1", "q2 0 B 1", "q3 0 C 1", "q10 0 D 1"],
        k=1,
    )
    findings = report.to_dict()["findings"]
    assert findings["unknown_queries"] == ["q0", "q4"]
    assert findings["missing_queries"] == ["q10", "q2", "q3"]
    assert report.queries == 3
    # only the judged query counts towards coverage
    assert report.coverage.judged_at_k == 1.0


TIES_RUN = [
    "q1 Q0 A 1 3.0 t",
    "q1 Q0 B 2 2.0 t",
    "q1 Q0 C 3 2.0 t",
    "q1 Q0 D 4 2.0 t",
    "q1 Q0 E 5 1.0 t",
    "q1 Q0 F 6 0.5 t",
    "q1 Q0 G 7 0.5 t",
    "q2 Q0 X 1 5.0 t",
    "q2 Q0 Y 2 5.0 t",
    "q2 Q0 X 3 5.0 t",
    "q2 Q0 Z 4 1.0 t",
]
TIES_QRELS = [f"q1 0 {d} 1" for d in "ABCDEFG"] + [f"q2 0 {d} 1" for d in "XYZ"]


@pytest.mark.parametrize(
    ("ties", "q1_group", "q2_group"),
    [
        ("trec_eval", ["D", "C", "B"], ["Y", "X"]),
        ("docid", ["B", "C", "D"], ["X", "Y"]),
        ("rank", ["B", "C", "D"], ["X", "Y"]),
    ],
)
def test_ties_touching_the_top_k(
    tmp_path: Path, ties: str, q1_group: list[str], q2_group: list[str]
) -> None:
    report = audit_files(tmp_path, TIES_RUN, TIES_QRELS, k=3, contract=Contract(ties=ties))
    # q1's 2.0 group sits at 2..4 and crosses k = 3; q2's 5.0 group (the repeated X
    # counted once) is inside the top 3; q1's 0.5 group lies wholly past k
    assert report.to_dict()["findings"]["ties"] == [
        {"query_id": "q1", "score": 2.0, "doc_ids": q1_group, "crosses_cutoff": True},
        {"query_id": "q2", "score": 5.0, "doc_ids": q2_group, "crosses_cutoff": False},
    ]


def test_ties_under_input_order_group_equal_scores_apart(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path,
        ["q1 Q0 A 1 1.0 t", "q1 Q0 B 2 2.0 t", "q1 Q0 C 3 3.0 t", "q1 Q0 D 4 1.0 t"],
        [f"q1 0 {d} 1" for d in "ABCD"],
        k=1,
        contract=Contract(ties="input"),
    )
    assert report.to_dict()["findings"]["ties"] == [
        {"query_id": "q1", "score": 1.0, "doc_ids": ["A", "D"], "crosses_cutoff": True}
    ]


def test_rank_disagreements(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path,
        [
            # q1: rank 3 scores above ranks 1 and 2
            "q1 Q0 A 1 4.0 t",
            "q1 Q0 B 2 3.0 t",
            "q1 Q0 C 3 5.0 t",
            "q1 Q0 D 4 1.0 t",
            # q2: equal ranks claim no order, equal scores may follow any rank
            "q2 Q0 E 1 2.0 t",
            "q2 Q0 F 1 3.0 t",
            "q2 Q0 G 2 1.0 t",
            "q2 Q0 H 3 1.0 t",
            # q3: I/K and J/L disagree although no two of them are adjacent in rank
            "q3 Q0 I 1 5.0 t",
            "q3 Q0 J 2 3.0 t",
            "q3 Q0 K 2 6.0 t",
            "q3 Q0 L 3 4.0 t",
            # q4: file order is not rank order, but rank and score agree
            "q4 Q0 M 2 1.0 t",
            "q4 Q0 N 1 2.0 t",
        ],
        [f"{q} 0 X 1" for q in ("q1", "q2", "q3", "q4")],
        k=2,
    )
    assert report.to_dict()["findings"]["rank_disagreements"] == [
        {"query_id": "q1", "lines": [1, 2, 3]},
        {"query_id": "q3", "lines": [9, 10, 11, 12]},
    ]
    assert [r.involved for r in report.findings.rank_disagreements] == [3, 4]


def test_rank_disagreement_lines_are_capped(tmp_path: Path) -> None:
    count = MAX_DISAGREEMENT_LINES + 10
    report = audit_files(
        tmp_path, [f"q1 Q0 d{i} {i} {i}.0 t" for i in range(1, count + 1)], ["q1 0 d1 1"], k=5
    )
    (only,) = report.findings.rank_disagreements
    assert only.lines == tuple(range(1, MAX_DISAGREEMENT_LINES + 1))
    assert only.involved == count


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0])),
        min_size=1,
        max_size=12,
    )
)
def test_rank_disagreement_matches_the_pairwise_definition(
    rows: list[tuple[int, float]],
) -> None:
    entries = [RunEntry("q", f"d{i}", rank, score, i + 1) for i, (rank, score) in enumerate(rows)]
    expected: set[int] = set()
    for a, b in itertools.permutations(entries, 2):
        if a.rank < b.rank and a.score < b.score:
            expected |= {a.line, b.line}
    report = audit_run(entries, {"q": {"d0": 1}}, k=3)
    found = report.findings.rank_disagreements
    if not expected:
        assert found == ()
    else:
        assert found[0].involved == len(expected)
        assert found[0].lines == tuple(sorted(expected)[:MAX_DISAGREEMENT_LINES])


def test_short_lists_count_after_duplicates(tmp_path: Path) -> None:
    report = audit_files(
        tmp_path,
        [
            "q1 Q0 A 1 2.0 t",
            "q2 Q0 B 1 3.0 t",
            "q2 Q0 C 2 2.0 t",
            "q2 Q0 B 3 1.0 t",
            "q3 Q0 D 1 3.0 t",
            "q3 Q0 E 2 2.0 t",
            "q3 Q0 F 3 1.0 t",
            "q9 Q0 G 1 1.0 t",
        ],
        ["q1 0 A 1", "q2 0 B 1", "q3 0 D 1", "q4 0 H 1"],
        k=3,
    )
    # q4 returned nothing: it is a missing query, not a short list
    assert report.to_dict()["findings"]["short_lists"] == [
        {"query_id": "q1", "returned": 1},
        {"query_id": "q2", "returned": 2},
        {"query_id": "q9", "returned": 1},
    ]


def test_zero_idcg_queries(tmp_path: Path) -> None:
    scale = Scale(-1, 2)
    run = ["q1 Q0 A 1 1.0 t", "q2 Q0 C 1 1.0 t", "q4 Q0 E 1 1.0 t"]
    qrels = ["q1 0 A 0", "q1 0 B -1", "q2 0 C 1", "q3 0 D 0", "q4 0 E 1", "q4 0 F 0"]
    report = audit_files(tmp_path, run, qrels, k=1, contract=Contract(scale=scale), scale=scale)
    # q3 is absent from the run and still a zero-IDCG query: a property of the judgments
    assert report.to_dict()["findings"]["zero_idcg_queries"] == ["q1", "q3"]
    # a gain map that gives grade 1 no gain leaves q4 without positive gain too
    no_gain = Contract(scale=scale, gain="0=0,1=0,2=3")
    report = audit_files(tmp_path, run, qrels, k=1, contract=no_gain, scale=scale)
    assert report.findings.zero_idcg_queries == ("q1", "q2", "q3", "q4")


EVERYTHING_RUN = [
    "q1 Q0 A 1 3.0 t",
    "q1 Q0 X 2 2.0 t",
    "q1 Q0 B 3 2.0 t",
    "q1 Q0 A 4 1.0 t",
    "q1 Q0 C 5 1.5 t",
    "q2 Q0 D 1 1.0 t",
    "q9 Q0 Z 1 1.0 t",
    "q1 Q0 bad 6 NaN t",
]
EVERYTHING_QRELS = ["q1 0 A 2", "q1 0 B 1", "q1 0 C 0", "q2 0 D 0", "q3 0 E 1"]


def test_every_kind_at_once(tmp_path: Path) -> None:
    report = audit_files(tmp_path, EVERYTHING_RUN, EVERYTHING_QRELS, k=2)
    (bad,) = read_run(tmp_path / "run.txt", collect_errors=True).bad_lines
    assert report.to_dict() == {
        "run": str(tmp_path / "run.txt"),
        "k": 2,
        "lines": 8,
        "queries": 3,
        # q1: A judged, X not (1/2); q2: D judged (1/1)
        "coverage": {"judged_at_k": 0.75, "unjudged_at_k": 1},
        "findings": {
            "bad_lines": [{"line": 8, "message": bad.message}],
            "duplicates": [{"query_id": "q1", "doc_id": "A", "lines": [1, 4]}],
            "unjudged": [{"query_id": "q1", "doc_id": "X", "rank": 2}],
            "unknown_queries": ["q9"],
            "missing_queries": ["q3"],
            "ties": [
                {"query_id": "q1", "score": 2.0, "doc_ids": ["X", "B"], "crosses_cutoff": True}
            ],
            "rank_disagreements": [{"query_id": "q1", "lines": [4, 5]}],
            "short_lists": [{"query_id": "q2", "returned": 1}, {"query_id": "q9", "returned": 1}],
            "zero_idcg_queries": ["q2"],
        },
    }
    assert json.loads(json.dumps(report.to_dict())) == report.to_dict()
    assert failed(report, FINDING_KINDS) == list(FINDING_KINDS)


def test_reject_policies_do_not_stop_the_audit_and_ties_are_kept(tmp_path: Path) -> None:
    strict = Contract(k=7, duplicates="reject", unjudged="reject", ties="docid")
    report = audit_files(tmp_path, EVERYTHING_RUN, EVERYTHING_QRELS, k=2, contract=strict)
    assert report.k == 2
    assert [d.lines for d in report.findings.duplicates] == [(1, 4)]
    # docid order puts B before X, so X falls to rank 3, past k
    assert report.findings.unjudged == ()
    assert [t.doc_ids for t in report.findings.ties] == [("B", "X")]


def test_fail_on_names_the_non_empty_kinds(tmp_path: Path) -> None:
    ties_only = audit_files(
        tmp_path, ["q1 Q0 A 1 1.0 t", "q1 Q0 B 2 1.0 t"], ["q1 0 A 1", "q1 0 B 1"], k=2
    )
    assert failed(ties_only, ["duplicates", "ties", "unjudged"]) == ["ties"]
    assert failed(ties_only, ["duplicates"]) == []
    assert failed(ties_only, []) == []
    everything = audit_files(tmp_path, EVERYTHING_RUN, EVERYTHING_QRELS, k=2)
    assert failed(everything, ["ties", "duplicates", "ties"]) == ["ties", "duplicates"]
    assert failed(everything, "duplicates, unjudged,") == ["duplicates", "unjudged"]


@pytest.mark.parametrize("kinds", [["duplicate"], ["ties", "Ties"], "unjudged,everything"])
def test_fail_on_refuses_unknown_kinds(tmp_path: Path, kinds: list[str] | str) -> None:
    report = audit_files(tmp_path, ["q1 Q0 A 1 1.0 t"], ["q1 0 A 1"], k=1)
    with pytest.raises(ValueError) as raised:
        failed(report, kinds)
    message = str(raised.value)
    assert all(kind in message for kind in FINDING_KINDS)


def test_invalid_k_is_a_contract_error() -> None:
    with pytest.raises(ContractError):
        audit_run([], {}, 0)


def test_lines_default_to_the_highest_line_seen() -> None:
    entries = [RunEntry("q1", "A", 1, 1.0, 3), RunEntry("q1", "B", 2, 0.5, 7)]
    report = audit_run(entries, {"q1": {"A": 1, "B": 0}}, k=2, run="mem")
    assert report.lines == 7
    assert report.run == "mem"
    assert report.to_dict()["findings"] == EMPTY_FINDINGS
