"""Random runs over the fast engine's whole ID domain, for the tests that hold
it to the reference: IDs of every shape and length boundary of the hasher
(`id_of_size`, `doc_pool`), random contracts, and `cases`, the hypothesis
strategy of one run with its judgments and contract. A case is a list of
`Row` (query, document, rank, score) and `Judged` judgments.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from judgepool.core.terms.contract import Contract, Scale

Judged = dict[str, dict[str, int]]
Row = tuple[str, str, int, float]

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


# for tests whose hypothesis cases write files under pytest's tmp_path
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
