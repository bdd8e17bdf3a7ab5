"""The fast engine gives the reference's evaluation, for every contract parameter.

Each case writes a run to a real file, then compares
``evaluate_columns(read_run_columns(path))`` with
``aggregate.evaluate(read_run(path))``: every per-query field and the summary to
1e-12 (in practice they agree bit for bit), the unknown and missing queries, or
the same refusal (`DuplicatesRejected` / `UnjudgedRejected`) with the same
entries and message. Hypothesis draws 4,900 runs here (and
test_fast_hashing.py more): duplicates, ties, unjudged documents, unknown and
missing queries, zero-IDCG queries, negative grades, entity patterns, runs not
grouped by query or not in score order; and IDs over the whole domain: 1 to
300 bytes, mixed lengths in one file, every word boundary of the hasher
(7/8/9 … 63/64/65 … 255/256/257 bytes), multi-byte UTF-8 straddling those
boundaries, MS MARCO v2 and URL shapes, long IDs differing in one middle byte,
chunk IDs (``doc#3``) with and without ``--entity``, and judged IDs that the
run never returns (so the two sides' IDs differ in length).
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judgepool.core.fast.keys as fast_keys
from judgepool.core.aggregate import evaluate, group_by_query
from judgepool.core.contract import Contract, Scale, preset
from judgepool.core.errors import DuplicatesRejected, UnjudgedRejected
from judgepool.core.fast import evaluate_columns
from judgepool.formats.fast_run import read_run_columns
from judgepool.formats.trec import read_qrels, read_run
from tests.compare import assert_same_evaluation

DATA = Path(__file__).resolve().parents[1] / "data"
Judged = dict[str, dict[str, int]]
Row = tuple[str, str, int, float]


# ----------------------------------------------------------------------- comparing


def _outcome(compute: Any) -> tuple[str, Any]:
    try:
        return ("ok", compute())
    except (DuplicatesRejected, UnjudgedRejected) as exc:
        return (type(exc).__name__, (exc.entries, str(exc)))


def check_same_as_reference(
    path: Path, judgments: Mapping[str, Mapping[str, int]], contract: Contract
) -> tuple[str, Any]:
    """Assert the fast path equals the reference on the run file ``path``."""
    expected = _outcome(
        lambda: evaluate(group_by_query(read_run(path).entries), judgments, contract, "run")
    )
    got = _outcome(lambda: evaluate_columns(read_run_columns(path), judgments, contract, "run"))
    assert got[0] == expected[0], (expected, got)
    if expected[0] == "ok":
        assert_same_evaluation(expected[1], got[1])
    else:
        assert got[1] == expected[1]
    return expected


def _write(path: Path, rows: list[Row]) -> Path:
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, d, r, s in rows), "utf-8")
    return path


@contextmanager
def _patched(**values: Any) -> Iterator[None]:
    """Replace attributes of the fast engine's `keys` module (its hashing and
    parallelism), which read them at call time."""
    saved = {name: getattr(fast_keys, name) for name in values}
    for name, value in values.items():
        setattr(fast_keys, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(fast_keys, name, value)


# ----------------------------------------------------------------------- strategies

# The ID domain. The fast path's hasher reads IDs as 8-byte words, so its
# length boundaries are the multiples of 8 (an ID ending one byte before, at or
# after a word's end) and the end of the data buffer; `id_of_size` builds IDs
# of exactly these byte lengths, with multi-byte characters that may straddle
# a word boundary. A case mixes every shape in one file, and the judgments
# hold IDs the run lacks (and the other way round), so that the run's IDs and
# the judged IDs differ in length: the trap that once made the two sides hash
# one ID differently (judged documents then scored as unjudged).
WORD_BOUNDARY_SIZES = [
    size for edge in (8, 16, 24, 32, 56, 64, 72, 128, 256) for size in (edge - 1, edge, edge + 1)
]
ID_SIZES = [1, 2, 3, *WORD_BOUNDARY_SIZES, 200, 299, 300]
ASCII_ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/?=&%#"
# one character of each UTF-8 length: 2 (é), 3 (文) and 4 (𝄞) bytes
WIDE_CHARS = ["é", "ß", "文", "書", "𝄞", "😀"]
QUERY_IDS = [
    "q1",
    "q2",
    "q10",
    "1048585",
    "é",
    "query-identifier-longer-than-24-bytes",
    "a-query-id-of-more-than-sixty-four-bytes-to-cross-every-word-boundary-1",
    "質問",
]
ENTITY = r"([^#]+)#\d+"


def id_of_size(rng: random.Random, size: int) -> str:
    """An ID of exactly ``size`` UTF-8 bytes, multi-byte characters anywhere."""
    chars = rng.choices(ASCII_ID_CHARS, k=size)
    for _ in range(rng.choice([0, 0, 1, 3, size])):
        char = rng.choice(WIDE_CHARS)
        width, at = len(char.encode()), rng.randrange(size)
        # a w-byte character in place of w ASCII ones keeps the byte length
        if at + width <= len(chars) and all(c in ASCII_ID_CHARS for c in chars[at : at + width]):
            chars[at : at + width] = [char]
    if chars[0] == "#":
        chars[0] = "x"  # '#' first would make a comment line
    return "".join(chars)


def url_id(rng: random.Random) -> str:
    host = rng.choice(["a.io", "en.wikipedia.org", "www.example-news-site.com"])
    parts = ["".join(rng.choices("abcdefghij-_0123456789", k=rng.randint(1, 30)))]
    parts *= rng.randint(0, 6)
    return f"https://{host}/" + "/".join(parts) + rng.choice(["", "/", ".html", "?p=1"])


def doc_id(rng: random.Random) -> str:
    """One document ID of any shape in the domain (without '#': chunk IDs are
    made from these by appending ``#n``)."""
    shape = rng.randrange(5)
    if shape == 0:
        text = id_of_size(rng, rng.choice(ID_SIZES))
    elif shape == 1:
        text = id_of_size(rng, rng.randint(1, 300))
    elif shape == 2:  # MS MARCO v2
        kind = rng.choice(["passage", "doc"])
        text = f"msmarco_{kind}_{rng.randint(0, 69):02}_{rng.randint(0, 10**10)}"
    elif shape == 3:
        text = url_id(rng)
    else:
        text = str(rng.randint(0, 10**8))
    return text.replace("#", "~")


def id_family(rng: random.Random) -> list[str]:
    """Long IDs that differ in one middle byte only, or are prefixes of each other."""
    base = id_of_size(rng, rng.choice([65, 72, 100, 200, 300])).replace("#", "~")
    at = rng.randrange(1, len(base))
    return [base, base[:at] + ("Z" if base[at] != "Z" else "Y") + base[at + 1 :], base[:at]]


def doc_pool(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct IDs of mixed shapes (more when a family is added)."""
    docs = list(dict.fromkeys(doc_id(rng) for _ in range(count)))
    if rng.randrange(4) == 0:
        docs = list(dict.fromkeys([*docs, *id_family(rng)]))
    return docs


SCALES = [Scale(0, 3), Scale(-1, 4), Scale(0, 1), Scale(1, 3), Scale(-2, 0), Scale(0, 7)]


# Every case is built from one seeded `random.Random`, the seed the only
# value hypothesis draws. Drawn value by value through hypothesis, the
# generation cost three times the checking (its engine mutating and replaying
# hundreds of draws per case); the domain below is the same, and `_size` and
# `_pick` lean to the ends of each range as hypothesis does (the smallest and
# largest sizes, the special scores), so the corners keep coming. A failing
# case is printed whole, and its seed rebuilds it.
# scores one 32-bit float holds, with 1.0 or with each other (under
# score_precision=single: 1 + 2**-24 is the midpoint that rounds to 1.0, the
# even float, and 1 + 3 * 2**-24 the one that rounds up; beyond the largest
# float, an infinity)
NEAR_SCORES = [
    1.0 + 2**-30,
    1.0 + 2**-24,
    1.0 + 3 * 2**-24,
    68.41769638061524,
    68.41769618988037,
    3.5e38,
    1e39,
    -1e39,
]
SPECIAL_SCORES = [0.0, -0.0, 1.0, 2.0, 0.5, 3.25, -1.0, 1e-300, *NEAR_SCORES]
GAIN_VALUES = [0, 1, 2.5, 3, 7, 100]


def _size(rng: random.Random, low: int, high: int) -> int:
    """An integer of [low, high], an end a quarter of the time."""
    roll = rng.random()
    if roll < 0.125:
        return low
    if roll < 0.25:
        return high
    return rng.randint(low, high)


def _score(rng: random.Random) -> float:
    if rng.random() < 0.5:
        return rng.choice(SPECIAL_SCORES)
    return rng.choice([-20.0, 20.0]) if rng.random() < 0.05 else rng.uniform(-20, 20)


def random_gain(rng: random.Random, scale: Scale) -> str:
    choice = rng.randrange(3)
    if choice == 0:
        return "linear"
    if choice == 1:
        return "exponential"
    parts = [f"{g}={rng.choice(GAIN_VALUES)}" for g in scale.grades if g > 0]
    return ",".join(parts) if parts else "linear"


def random_contract(rng: random.Random, scale: Scale, entity: bool | None = None) -> Contract:
    use_entity = rng.random() < 0.5 if entity is None else entity
    return Contract(
        k=_size(rng, 1, 12),
        scale=scale,
        gain=random_gain(rng, scale),
        universe=rng.choice(["judged", "candidates"]),
        unjudged=rng.choice(["reject", "zero", "condense"]),
        duplicates=rng.choice(["reject", "first"]),
        entity=ENTITY if use_entity else None,
        ties=rng.choice(["trec_eval", "docid", "rank", "input"]),
        score_precision=rng.choice(["double", "single"]),
        zero_idcg=rng.choice(["zero", "one", "exclude"]),
        missing=rng.choice(["zero", "skip"]),
        relevant_from=_size(rng, -2, 5),
    )


def random_case(
    rng: random.Random,
    *,
    entity: bool | None = None,
    max_docs: int = 12,
    max_rows: int = 14,
    scores: Sequence[float] | None = None,
) -> tuple[list[Row], Judged, Contract]:
    """One run with its judgments and contract (see `cases`)."""
    scale = rng.choice(SCALES)
    contract = random_contract(rng, scale, entity)
    docs = doc_pool(rng, _size(rng, 1, max_docs))
    if contract.entity is not None or rng.randrange(5) == 0:
        docs = [f"{d}#{c}" for d in docs for c in range(_size(rng, 1, 3))]
    # judged IDs the run never returns, of other lengths than the run's
    judged_only = doc_pool(rng, _size(rng, 0, 3))[: _size(rng, 0, 3)]
    queries = rng.sample(QUERY_IDS, _size(rng, 1, 4))
    judgments: Judged = {}
    for query_id in [*queries, "judged-but-absent"]:
        kind = rng.randrange(6)
        if kind == 0:
            continue  # the run's query is unknown to the judgments
        chosen = rng.sample(docs, _size(rng, 0, len(docs)))
        if judged_only:
            chosen += rng.sample(judged_only, _size(rng, 0, len(judged_only)))
        if kind == 1:
            chosen = []  # a judged query with no judgments at all
        # judge the entity (what the pattern maps a chunk to) or the ID itself
        keys = {d.split("#")[0] if rng.random() < 0.5 else d for d in chosen}
        judgments[query_id] = {d: _size(rng, scale.minimum, scale.maximum) for d in sorted(keys)}
    rows: list[Row] = []
    for query_id in queries:
        count = _size(rng, 1, max_rows)
        if scores is None:
            chosen_scores = [_score(rng) for _ in range(count)]
        else:
            chosen_scores = [rng.choice(scores) for _ in range(count)]
        if rng.random() < 0.5:
            chosen_scores.sort(reverse=True)
        chosen_docs = rng.choices(docs, k=count)
        ranks = list(range(1, count + 1))
        if rng.randrange(4) == 0:
            ranks = [_size(rng, -2, 6) for _ in range(count)]
        rows.extend(zip([query_id] * count, chosen_docs, ranks, chosen_scores, strict=True))
    if rng.randrange(4) == 0:
        rng.shuffle(rows)  # queries interleaved
    return rows, judgments, contract


def cases(
    *,
    entity: bool | None = None,
    max_docs: int = 12,
    max_rows: int = 14,
    scores: Sequence[float] | None = None,
) -> st.SearchStrategy[tuple[list[Row], Judged, Contract]]:
    """Runs with their judgments and contracts over the whole domain: every
    contract parameter, duplicates, ties, unjudged documents, unknown and
    missing queries, zero-IDCG queries, negative grades, entity patterns,
    runs not grouped by query or not in score order, IDs of every shape
    (`doc_pool`). ``scores``: the values scores are drawn from (default:
    special values and any float in [-20, 20])."""

    def build(seed: int) -> tuple[list[Row], Judged, Contract]:
        rng = random.Random(seed)
        return random_case(rng, entity=entity, max_docs=max_docs, max_rows=max_rows, scores=scores)

    return st.integers(0, 2**64 - 1).map(build)


_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# ----------------------------------------------------------------------- properties


@settings(_SETTINGS, max_examples=1500)
@given(case=cases())
@pytest.mark.slow
def test_every_contract_on_random_runs(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=900)
@given(case=cases(entity=True, max_docs=5, max_rows=16))
@pytest.mark.slow
def test_entity_patterns_with_many_duplicate_chunks(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=800)
@given(case=cases(max_rows=20, scores=[1.0, 2.0, 0.0, -0.0]))
@pytest.mark.slow
def test_heavy_ties_under_every_tie_policy(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=300)
@given(case=cases(max_rows=20, scores=[1.0, 0.0, *NEAR_SCORES]))
def test_near_equal_scores_under_both_precisions(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    """Scores that only single precision ties: the order, the tie range and
    the refusals under every tie policy, compared as doubles or as floats."""
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=700)
@given(case=cases(max_docs=4, max_rows=10))
def test_refusals_list_the_same_entries(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    strict = contract.with_changes(duplicates="reject", unjudged="reject")
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, strict)


@settings(_SETTINGS, max_examples=600)
@given(case=cases(), workers=st.sampled_from([1, 3]), chunk=st.sampled_from([1, 2, 5]))
@pytest.mark.slow
def test_chunked_and_parallel_hashing_changes_nothing(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract], workers: int, chunk: int
) -> None:
    rows, judgments, contract = case
    with _patched(workers=lambda: workers, CHUNK_ROWS=chunk, PARALLEL_ROWS=0):
        check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


def _colliding_hash(self: Any, low: int, high: int, salt: Any) -> Any:
    return salt & 0  # every ID of every query hashes alike


@settings(_SETTINGS, max_examples=400)
@given(case=cases(max_docs=6))
@pytest.mark.slow
def test_hash_collisions_cost_time_not_correctness(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    with _patched(code_hash=lambda codes, salt: salt & 0):
        saved = fast_keys.StringHasher.hash
        fast_keys.StringHasher.hash = _colliding_hash  # type: ignore[method-assign]
        try:
            check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)
        finally:
            fast_keys.StringHasher.hash = saved  # type: ignore[method-assign]


# ----------------------------------------------------------------------- examples

TEACHING = {"t": {"A": 3, "B": 2, "C": 1, "D": 0}}


@pytest.mark.parametrize(
    ("docs", "k", "universe", "gain", "ndcg"),
    [
        (["B", "C"], 2, "judged", "linear", 0.617320),
        (["B", "C"], 2, "candidates", "linear", 1.0),
        (["A", "B"], 2, "judged", "linear", 1.0),
        (["B"], 1, "judged", "linear", 0.666667),
        (["C", "B"], 2, "judged", "linear", 0.530721),
        (["D"], 2, "judged", "linear", 0.0),
        (["B", "C"], 2, "judged", "exponential", 0.408300),
    ],
)
def test_the_contracts_reference_values(
    tmp_path: Path, docs: list[str], k: int, universe: str, gain: str, ndcg: float
) -> None:
    rows = [("t", d, i + 1, float(len(docs) - i)) for i, d in enumerate(docs)]
    contract = Contract(k=k, universe=universe, gain=gain)
    outcome = check_same_as_reference(_write(tmp_path / "run", rows), TEACHING, contract)
    assert outcome[1].per_query[0].ndcg == pytest.approx(ndcg, abs=1e-6)


def test_zero_idcg_macro_and_pooled(tmp_path: Path) -> None:
    judgments = {"q1": {"A": 3}, "q2": {"B": 1}, "z": {"Z": 0}}
    path = _write(tmp_path / "run", [("q1", "A", 1, 1.0), ("z", "Z", 1, 1.0)])
    for policy in ("zero", "one", "exclude"):
        contract = Contract(k=1, zero_idcg=policy, missing="zero")
        evaluation = check_same_as_reference(path, judgments, contract)[1]
        assert evaluation.summary.ndcg_pooled == pytest.approx(0.75)
        assert evaluation.summary.zero_idcg == 1


def test_policies_refuse_with_every_entry_and_line(tmp_path: Path) -> None:
    rows = [
        ("t", "B", 1, 2.0),
        ("t", "C", 2, 1.0),
        ("t", "B", 3, 0.5),
        ("u", "X", 1, 1.0),
        ("u", "X", 2, 1.0),
    ]  # "u" is unknown: its duplicate is not the judgments' business
    path = _write(tmp_path / "run", rows)
    kind, (entries, _) = check_same_as_reference(path, TEACHING, Contract(k=3))
    assert kind == "DuplicatesRejected"
    assert [(e.query_id, e.doc_id, e.lines) for e in entries] == [("t", "B", (1, 3))]
    kind, (entries, _) = check_same_as_reference(
        _write(tmp_path / "run2", [("t", "E", 1, 1.0), ("t", "A", 2, 0.5), ("t", "F", 3, 0.1)]),
        TEACHING,
        Contract(k=2),
    )
    assert kind == "UnjudgedRejected"
    assert [(e.query_id, e.doc_id, e.rank) for e in entries] == [("t", "E", 1)]


def test_an_empty_run_and_a_run_of_unknown_queries(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"# nothing here\n")
    for contract in (preset("trec_eval"), Contract(missing="skip", universe="candidates")):
        check_same_as_reference(empty, TEACHING, contract)
        check_same_as_reference(
            _write(tmp_path / "unknown", [("x", "A", 1, 1.0)]), TEACHING, contract
        )
        check_same_as_reference(empty, {}, contract)


def test_lines_come_from_the_file_not_the_row(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("# header\nt Q0 B 1 2 x\n\nt Q0 C 2 1 x\n# note\nt Q0 B 3 0.5 x\n")
    kind, (entries, _) = check_same_as_reference(path, TEACHING, Contract(k=3))
    assert kind == "DuplicatesRejected" and entries[0].lines == (2, 6)


def test_a_long_tie_group_across_the_cutoff(tmp_path: Path) -> None:
    # 200 documents with one score, the relevant ones scattered: the tie range
    # spans from all zeros to all relevant at the top
    judged = {"t": {f"d{i:03}": (3 if i % 17 == 0 else 0) for i in range(0, 200, 3)}}
    rows = [("t", f"d{i:03}", i + 1, 1.0) for i in range(200)]
    path = _write(tmp_path / "run", rows)
    for ties in ("trec_eval", "docid", "rank", "input"):
        result = check_same_as_reference(path, judged, Contract(k=10, ties=ties, unjudged="zero"))
        record = result[1].per_query[0]
        assert record.ndcg_tie_min == 0.0 and record.ndcg_tie_max == 1.0


def _gz_judgments(name: str, scale: Scale) -> dict[str, dict[str, int]]:
    return read_qrels(DATA / name, scale).judgments


@pytest.mark.parametrize(
    ("run", "qrels", "scale"),
    [
        (
            "dl19-passage/runs/repllama.top1000.trec.gz",
            "dl19-passage/qrels.dl19-passage.txt.gz",
            Scale(0, 3),
        ),
        ("dl-hard/runs/bm25+t5zs.trec.gz", "dl-hard/dl_hard-passage.qrels.gz", Scale(0, 3)),
        ("trec_eval-test/results.test.gz", "trec_eval-test/qrels.rel_level.gz", Scale(-1, 4)),
    ],
)
def test_real_runs_under_several_contracts(
    tmp_path: Path, run: str, qrels: str, scale: Scale
) -> None:
    source = DATA / run
    if not source.exists():
        matches = sorted((DATA / Path(run).parent).glob("*"))
        pytest.fail(f"{source} is missing (the folder holds {[m.name for m in matches]})")
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(gzip.decompress(source.read_bytes())))
    judgments = _gz_judgments(qrels, scale)
    for contract in (
        preset("trec_eval", scale=scale),
        preset("trec_eval", scale=scale, k=100, unjudged="condense", relevant_from=2),
        Contract(
            k=20,
            scale=scale,
            gain="exponential",
            universe="candidates",
            unjudged="zero",
            duplicates="first",
            ties="rank",
            zero_idcg="exclude",
            missing="skip",
        ),
    ):
        check_same_as_reference(path, judgments, contract)


def test_columns_from_elsewhere_with_explicit_lines(tmp_path: Path) -> None:
    # the store hands over its own columns: explicit line numbers, chunked or
    # large_string IDs; the engine takes anything with RunColumns' attributes
    @dataclass(frozen=True)
    class Stored:
        query_ids: Any
        doc_ids: Any
        scores: Any
        ranks: Any
        lines: Any

    path = tmp_path / "run"
    path.write_text("# head\nt Q0 B 1 2 x\nt Q0 C 2 2 x\n\nt Q0 B 3 0.5 x\nu Q0 A 1 1 x\n")
    entries = read_run(path).entries
    stored = Stored(
        pa.chunked_array([[e.query_id for e in entries[:2]], [e.query_id for e in entries[2:]]]),
        pa.array([e.doc_id for e in entries], type=pa.large_string()),
        np.array([e.score for e in entries]),
        np.array([e.rank for e in entries]),
        np.array([e.line for e in entries]),
    )
    for contract in (Contract(k=2), Contract(k=2, duplicates="first", unjudged="zero")):
        expected = _outcome(lambda c=contract: evaluate(group_by_query(entries), TEACHING, c))
        got = _outcome(lambda c=contract: evaluate_columns(stored, TEACHING, c))
        assert got[0] == expected[0]
        if expected[0] == "ok":
            assert_same_evaluation(expected[1], got[1])
        else:
            assert got[1] == expected[1]
