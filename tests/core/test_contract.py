"""The contract validates itself, serialises, and fingerprints its inputs."""

import pytest

from judgepool.core.terms.contract import Contract, Scale, preset
from judgepool.core.terms.errors import ContractError


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
        ("score_precision", "float"),
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


def test_presets_name_both_trec_eval_versions() -> None:
    # 9.0.8 reads a score into a C float, 10.0 into a double; the rest is equal
    nine, ten = preset("trec_eval9"), preset("trec_eval10")
    assert (nine.score_precision, ten.score_precision) == ("single", "double")
    assert nine.with_changes(score_precision="double") == ten
    # `trec_eval` is 9.0.8: the published numbers, pytrec_eval and ir_measures
    assert preset("trec_eval") == nine
    assert preset("trec_eval9", score_precision="double") == ten
    assert Contract().score_precision == "double"


def test_score_precision_is_recorded_and_shown() -> None:
    nine = preset("trec_eval9")
    assert nine.to_dict()["score_precision"] == "single"
    assert Contract.from_dict(nine.to_dict()) == nine
    assert ("score_precision", "single") in nine.shown()
    assert "ties=trec_eval score_precision=single" in nine.describe()
    assert "score_precision=double" in Contract().describe()


def test_fingerprints_from_before_score_precision_stay() -> None:
    """A stored contract from before the parameter has no ``score_precision``:
    it reads back as ``double``, what it was computed with, and the contracts
    that compare doubles keep the fingerprints they had (these two values were
    computed by the contract code before the parameter existed)."""
    stored = Contract().to_dict()
    del stored["score_precision"]
    assert Contract.from_dict(stored).score_precision == "double"
    q, r = "q" * 64, "r" * 64
    assert Contract().fingerprint(q, r) == (
        "b982a0027f225a272ed2292ddc43343d7509ea330651d852dfc51f59e0346e64"
    )
    assert preset("trec_eval10", k=20).fingerprint(q, r) == (
        "eb339fa07512973444cdbf9a65db56c4e52f649a0ee0c021860dddb8859b9374"
    )
    # single precision gives other numbers: another fingerprint
    assert preset("trec_eval9", k=20).fingerprint(q, r) != preset("trec_eval10", k=20).fingerprint(
        q, r
    )


def test_unknown_keys_in_stored_contract_are_refused() -> None:
    with pytest.raises(ContractError, match="unknown contract parameter"):
        Contract.from_dict({"k": 10, "cutoff": 5})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("０..３", "must look like MIN..MAX"),
        ("0..٣", "must look like MIN..MAX"),
        ("0..1_0", "must look like MIN..MAX"),
        ("0..+3", None),
        (" 0 .. 3 ", None),
        ("0..100000000", "grades must lie within -1000..1000"),
        ("-1001..0", "grades must lie within -1000..1000"),
        ("0.." + "9" * 5000, "grades must lie within -1000..1000"),
        ("0..1000", None),
    ],
)
def test_scale_numbers_are_ascii_and_bounded(text: str, message: str | None) -> None:
    if message is None:
        assert Scale.parse(text).minimum == 0
        return
    with pytest.raises(ContractError, match=message):
        Scale.parse(text)


def test_a_scale_too_wide_cannot_be_built_at_all() -> None:
    with pytest.raises(ContractError, match="too wide"):
        Scale(0, 10**8)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0=0,1=1,2=１.５,3=7", "finite number"),
        ("0=0,1=1,２=3,3=7", "grade '２' in the gain map"),
        ("0=0,1=1,2=1_0,3=7", "finite number"),
        ("0=0,1=1,2=nan,3=7", "finite number"),
        ("0=0,1=1,2=inf,3=7", "finite number"),
        ("0=0,1=1e308,2=1e309,3=7", "got '1e309'"),
        ("0=0,1=1,2=3,3=7,99999=1", "is outside -1000..1000"),
    ],
)
def test_gain_maps_read_ascii_finite_numbers(spec: str, message: str) -> None:
    with pytest.raises(ContractError, match=message):
        Contract(gain=spec)


def test_gains_times_k_must_stay_finite() -> None:
    assert Contract(gain="0=0,1=1e307,2=1e307,3=1e307", k=10).k == 10
    with pytest.raises(ContractError, match=r"times k \(20\) is not a finite number"):
        Contract(gain="0=0,1=1e307,2=1e307,3=1e307", k=20)
    # exponential gain on the widest scale stays finite
    assert Contract(gain="exponential", scale=Scale(0, 1000), k=1000).gains[1000] > 1e300


def test_k_and_relevant_from_are_bounded() -> None:
    assert Contract(k=1_000_000).k == 1_000_000
    with pytest.raises(ContractError, match=r"k must be at most 1000000, got 1000001"):
        Contract(k=1_000_001)
    with pytest.raises(ContractError, match=r"k must be at most 1000000"):
        Contract(k=2**63)
    with pytest.raises(ContractError, match=r"relevant_from must be at most 1000"):
        Contract(relevant_from=10**30)
    with pytest.raises(ContractError, match=r"relevant_from must be an integer of at least -1000"):
        Contract(relevant_from=-1001)
