"""The judged share by rank, by hand and against a brute-force count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgepool.core.auditing.judged_share import judged_share_by_rank


def test_shares_by_hand() -> None:
    rankings = {"q1": ["a", "b", "c"], "q2": ["x", "y"], "q3": ["m"]}
    judged = {"q1": {"a", "c"}, "q2": {"y"}, "q3": {"m"}}
    # rank 1: a, x, m -> 2 of 3; rank 2: b, y -> 1 of 2; rank 3: c -> 1 of 1;
    # rank 4: no query reaches it
    assert judged_share_by_rank(rankings, judged, 4) == [2 / 3, 1 / 2, 1.0, None]


def test_a_query_without_judgments_counts_as_unjudged() -> None:
    assert judged_share_by_rank({"q": ["a", "b"]}, {}, 2) == [0.0, 0.0]


def test_lists_longer_than_k_are_cut() -> None:
    assert judged_share_by_rank({"q": ["a", "b", "c"]}, {"q": {"c"}}, 2) == [0.0, 0.0]


def test_no_queries_no_shares() -> None:
    assert judged_share_by_rank({}, {}, 3) == [None, None, None]


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be positive"):
        judged_share_by_rank({"q": ["a"]}, {}, 0)


def _brute_force(
    rankings: dict[str, list[str]], judged: dict[str, set[str]], k: int
) -> list[float | None]:
    # every (query, rank) cell counted on its own: the definition, literally
    shares: list[float | None] = []
    for rank in range(1, k + 1):
        reaching = [query for query, ranking in rankings.items() if len(ranking) >= rank]
        hits = [q for q in reaching if rankings[q][rank - 1] in judged.get(q, set())]
        shares.append(len(hits) / len(reaching) if reaching else None)
    return shares


_docs = st.sampled_from([f"d{number}" for number in range(8)])


@given(
    rankings=st.dictionaries(
        st.sampled_from([f"q{number}" for number in range(6)]),
        st.lists(_docs, max_size=12, unique=True),
        max_size=6,
    ),
    judged=st.dictionaries(
        st.sampled_from([f"q{number}" for number in range(8)]),
        st.sets(_docs, max_size=8),
        max_size=8,
    ),
    k=st.integers(1, 15),
)
def test_matches_a_brute_force_count(
    rankings: dict[str, list[str]], judged: dict[str, set[str]], k: int
) -> None:
    assert judged_share_by_rank(rankings, judged, k) == _brute_force(rankings, judged, k)
