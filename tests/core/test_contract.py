"""The contract validates itself, serialises, and fingerprints its inputs."""

import pytest

from judgepool.core.contract import Contract, Scale, preset
from judgepool.core.errors import ContractError


@pytest.mark.parametrize("k", [0, -1, True, False, 2.0, "10"])
def test_k_must_be_a_positive_integer(k: object) -> None:
    with pytest.raises(ContractError, match="k must be a positive integer"):
        Contract(k=k)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("universe", "all"),
        ("unjudged", "skip"),
        ("duplicates", "last"),
        ("ties", "random"),
        ("zero_idcg", "nan"),
        ("missing", "one"),
    ],
)
def test_unknown_policy_values_are_refused(field: str, value: str) -> None:
    with pytest.raises(ContractError, match=field):
        Contract(**{field: value})


def test_gains() -> None:
    assert Contract().gains == {0: 0.0, 1: 1.0, 2: 2.0, 3: 3.0}
    assert Contract(gain="exponential").gains == {0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0}
    assert Contract(gain="0=0,1=1,2=3,3=7").gains == {0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0}
    # negative grades are judged but never gain anything, as in trec_eval
    assert Contract(scale=Scale(-1, 4)).gain_of(-1) == 0.0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0=0,1=1,2=3", "no gain for grade"),
        ("0=1,1=1,2=3,3=7", "grades ≤ 0 have gain 0"),
        ("1=1,1=2,2=3,3=7", "twice"),
        ("quadratic", "gain must be"),
        ("0=0,1=-1,2=3,3=7", "finite number"),
    ],
)
def test_bad_gain_specs(spec: str, message: str) -> None:
    with pytest.raises(ContractError, match=message):
        Contract(gain=spec)


def test_scale_parsing() -> None:
    assert Scale.parse("-1..4") == Scale(-1, 4)
    assert str(Scale.parse("0..3")) == "0..3"
    with pytest.raises(ContractError):
        Scale.parse("3..0")
    with pytest.raises(ContractError):
        Scale.parse("0-3")


def test_entity_mapping() -> None:
    c = Contract(entity=r"([^#]+)#\d+")
    assert c.entity_of("doc12#3") == "doc12"
    assert c.entity_of("doc12") == "doc12"  # no match: the ID is its own entity
    assert Contract(entity=r"[^#]+").entity_of("doc12#3") == "doc12"
    with pytest.raises(ContractError, match="regular expression"):
        Contract(entity="(")


def test_round_trip_and_fingerprint() -> None:
    c = preset("trec_eval", k=20, scale=Scale(-1, 4))
    assert Contract.from_dict(c.to_dict()) == c
    assert c.to_dict()["scale"] == "-1..4"
    f = c.fingerprint("q" * 64, "r" * 64)
    assert f == c.fingerprint("q" * 64, "r" * 64)
    assert f != c.fingerprint("q" * 63 + "x", "r" * 64)
    assert f != c.fingerprint("q" * 64, "r" * 63 + "x")
    assert f != c.with_changes(k=10).fingerprint("q" * 64, "r" * 64)


def test_preset_trec_eval_and_overrides() -> None:
    c = preset("trec_eval")
    assert (c.gain, c.universe, c.unjudged, c.ties, c.missing) == (
        "linear",
        "judged",
        "zero",
        "trec_eval",
        "zero",
    )
    assert preset("trec_eval", unjudged="condense").unjudged == "condense"
    with pytest.raises(ContractError, match="unknown preset"):
        preset("ranx")


def test_unknown_keys_in_stored_contract_are_refused() -> None:
    with pytest.raises(ContractError, match="unknown contract parameter"):
        Contract.from_dict({"k": 10, "cutoff": 5})
