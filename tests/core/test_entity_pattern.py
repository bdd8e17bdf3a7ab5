"""The contract's entity pattern runs in RE2 (`judgepool.core.terms.entity_pattern`):
a pattern that makes Python's ``re`` backtrack for ever maps an ID at once; a
pattern RE2 cannot run is refused when the contract is made, with the reason;
and the fast engine's all-at-once mapping (Arrow's RE2 kernel) gives what the
reference's one-ID-at-a-time mapping gives."""

from __future__ import annotations

import time

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.entity_pattern import EntityPattern
from judgepool.core.terms.errors import ContractError

# Twelve ways to match one digit, then an x that never comes: Python's re
# tries every way of splitting the digits among the twelve (12^n for n digits).
CATASTROPHIC = r"(\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d|\d)+x"


def test_a_backtracking_pattern_maps_long_ids_at_once() -> None:
    contract = Contract(entity=CATASTROPHIC, unjudged="zero")
    ids = ["1" * length for length in (10, 30, 100, 10_000)]
    started = time.monotonic()
    assert [contract.entity_of(doc) for doc in ids] == ids  # no x: each its own entity
    pattern = contract.entity_pattern
    assert pattern is not None
    rewrite, replacement = pattern.arrow_rewrite()
    mapped = pc.replace_substring_regex(pa.array(ids), rewrite, replacement, max_replacements=1)
    assert mapped.to_pylist() == ids
    # RE2 is linear in the ID: microseconds here (Python's re: never, for 30 digits)
    assert time.monotonic() - started < 5.0
    assert Contract(entity=CATASTROPHIC).entity_of("1234x-rest") == "4"


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        (r"(?<=doc)\d+", "(?<="),
        (r"(doc)\1", "\\1"),
        (r"(?P<d>doc)(?P=d)", "(?P"),
        (r"(?=doc)doc", "(?="),
        (r"(doc\d+)\Z", "\\Z"),
        (r"(?x) doc", "(?x"),
        (r"(doc)++", "++"),
        ("(", "missing )"),
    ],
)
def test_what_re2_cannot_run_is_refused_with_the_reason(pattern: str, named: str) -> None:
    with pytest.raises(ContractError) as refused:
        Contract(entity=pattern)
    message = str(refused.value)
    assert named in message
    assert "RE2" in message and "linear" in message


def test_a_single_byte_is_refused_as_it_could_cut_a_character() -> None:
    with pytest.raises(ContractError, match=r"\\C"):
        Contract(entity=r"(\C)")
    # an escaped backslash before C is a backslash and a C, which is fine
    assert Contract(entity=r"(a\\C)").entity_of("a\\Cb") == "a\\C"


def test_a_contract_with_a_pattern_travels_to_worker_processes() -> None:
    import pickle

    contract = Contract(entity=r"([^#]+)#", unjudged="zero")
    assert contract.entity_of("d1#2") == "d1"
    again = pickle.loads(pickle.dumps(contract))
    assert again == contract and again.entity_of("d7#0") == "d7"


PATTERNS = [
    r"([^#]+)#",
    r"([^#]+)#\d+",
    r"[^#]+",
    r"(a)?b",
    r"(?i)(DOC)\d",
    r"(\pL+)-",
    r"(é|e)+",
    r"(?P<doc>[^_]+)_(\d+)",
    r"x|(y)",
    r"",  # refused: empty
    CATASTROPHIC,
]
IDS = st.text(alphabet="abdoceéDOC#_-xy019٣😀", min_size=1, max_size=24)


@given(ids=st.lists(IDS, min_size=1, max_size=30))
def test_the_fast_mapping_is_the_reference_mapping(ids: list[str]) -> None:
    for text in PATTERNS:
        if not text:
            with pytest.raises(ContractError):
                EntityPattern(text)
            continue
        pattern = EntityPattern(text)
        rewrite, replacement = pattern.arrow_rewrite()
        fast = pc.replace_substring_regex(
            pa.array(ids), rewrite, replacement, max_replacements=1
        ).to_pylist()
        assert fast == [pattern.entity_of(doc) for doc in ids], text


def test_digits_and_word_characters_are_ascii() -> None:
    # RE2's \d is [0-9]: another script's digits are not taken, as documented
    assert Contract(entity=r"(\d+)x").entity_of("٣٣x") == "٣٣x"
    assert Contract(entity=r"(\p{Nd}+)x").entity_of("٣٣x") == "٣٣"
