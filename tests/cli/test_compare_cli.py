"""``judgepool compare`` on real files: its statistics held to scipy, statsmodels
and exact enumeration on the per-query nDCGs ``score`` prints; the contract's
reference bounds; its formats; the baseline; its refusals; and the same
output from both engines and from a workspace."""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import Result
from scipy.stats import ttest_rel
from statsmodels.stats.multitest import multipletests

from tests.cli.conftest import ranked, write_qrels, write_run

DL19 = Path(__file__).resolve().parents[1] / "data" / "dl19-passage"
# the 43-query DL19 slice with top-20 runs (moved from sample_data/ by the demo rebuild)
SAMPLE = Path(__file__).parents[2] / "tests" / "fixtures" / "dl19-top20"
TOLERANCE = 1e-12
# the evaluation contract's keys of a pair, and the pair in words (`sentence`)
PAIR_FIELDS = {
    "a", "b", "mean_diff", "wins", "ties", "losses", "t_p", "randomization_p", "bootstrap_ci",
    "effect_size", "t_p_adjusted", "randomization_p_adjusted", "diff_bounds", "verdict",
    "sentence",
}  # fmt: skip
DEMO = Path(__file__).parents[2] / "sample_data" / "dl19"


def compare_json(cli: Callable[..., Result], *args: Any) -> dict[str, Any]:
    result = cli("compare", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def per_query(cli: Callable[..., Result], run: Path, *args: Any) -> dict[str, float]:
    result = cli("score", run, *args, "--format", "json", "--per-query")
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)["per_query"]
    return {r["query_id"]: r["ndcg"] for r in records if r["ndcg"] is not None}


def random_runs(tmp_path: Path, runs: int, queries: int, seed: int) -> tuple[Path, list[Path]]:
    """Fully judged queries (no holes): runs that rank the judged documents at random."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(8)]
    judgments = {f"q{q}": {d: rng.randint(0, 3) for d in docs} for q in range(queries)}
    qrels = write_qrels(tmp_path / "qrels", judgments)
    paths = []
    for r in range(runs):
        rows = [row for q in judgments for row in ranked(q, rng.sample(docs, 5))]
        paths.append(write_run(tmp_path / f"run{r}", rows))
    return qrels, paths


def test_statistics_equal_scipy_and_the_per_query_values(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, runs = random_runs(tmp_path, 3, 40, seed=1)
    data = compare_json(cli, *runs, "--qrels", qrels, "-k", "5")
    values = [per_query(cli, run, "--qrels", qrels, "-k", "5") for run in runs]
    queries = sorted(values[0])
    assert data["population"] == {"queries": 40, "left_out": []}
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        (str(a), str(b)) for a, b in itertools.combinations(runs, 2)
    ]
    for pair in data["pairs"]:
        a, b = (values[[str(r) for r in runs].index(pair[side])] for side in ("a", "b"))
        x = np.array([a[q] for q in queries])
        y = np.array([b[q] for q in queries])
        d = x - y
        assert abs(pair["t_p"] - ttest_rel(x, y).pvalue) <= TOLERANCE
        assert (pair["wins"], pair["ties"], pair["losses"]) == (
            int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()),
        )  # fmt: skip
        assert pair["mean_diff"] == pytest.approx(d.mean(), abs=TOLERANCE)
        assert pair["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-9)
        assert set(pair) == PAIR_FIELDS
    for run, value in zip(data["runs"], values, strict=True):
        assert run["ndcg"] == pytest.approx(np.mean(list(value.values())), abs=TOLERANCE)
        assert run["bounds"] == [pytest.approx(run["ndcg"])] * 2  # nothing unjudged


def test_randomization_p_is_exact_enumeration_for_small_n(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, runs = random_runs(tmp_path, 2, 9, seed=5)
    data = compare_json(cli, *runs, "--qrels", qrels, "-k", "5", "--permutations", "1000")
    a, b = (per_query(cli, run, "--qrels", qrels, "-k", "5") for run in runs)
    d = np.array([a[q] - b[q] for q in sorted(a)])
    observed = abs(d.sum())
    extreme = sum(
        abs((np.array(signs) * d).sum()) >= observed * (1 - 1e-12)
        for signs in itertools.product((1, -1), repeat=d.size)
    )
    assert data["pairs"][0]["randomization_p"] == extreme / 2**d.size


@pytest.mark.parametrize(("correction", "method"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_equal_statsmodels(
    cli: Callable[..., Result], tmp_path: Path, correction: str, method: str
) -> None:
    qrels, runs = random_runs(tmp_path, 4, 25, seed=3)
    data = compare_json(cli, *runs, "--qrels", qrels, "-k", "5", "--correction", correction)
    assert len(data["pairs"]) == 6 and data["correction"] == correction
    for raw, adjusted in (("t_p", "t_p_adjusted"), ("randomization_p", "randomization_p_adjusted")):
        expected = multipletests([p[raw] for p in data["pairs"]], method=method)[1]
        assert [p[adjusted] for p in data["pairs"]] == pytest.approx(list(expected), abs=1e-12)
    none = compare_json(cli, *runs, "--qrels", qrels, "-k", "5", "--correction", "none")
    assert all(p["t_p_adjusted"] == p["t_p"] for p in none["pairs"])


def test_the_contracts_reference_example(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels = write_qrels(tmp_path / "qrels", {"q": {"A": 3, "B": 0}})
    first = write_run(tmp_path / "AU", ranked("q", ["A", "U"]))
    second = write_run(tmp_path / "UA", ranked("q", ["U", "A"]))
    data = compare_json(cli, first, second, "--qrels", qrels, "-k", "2", "--unjudged", "zero")
    pair = data["pairs"][0]
    assert pair["diff_bounds"] == pytest.approx([0.0, 1 - 1 / math.log2(3)], abs=TOLERANCE)
    assert round(pair["diff_bounds"][1], 6) == 0.369070
    assert pair["verdict"] == "could flip"
    assert data["runs"][1]["bounds"] == pytest.approx([0.630930, 1.0], abs=1e-6)


def test_the_same_seed_prints_the_same_output(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels, runs = random_runs(tmp_path, 3, 30, seed=9)
    for output in ("json", "table", "latex", "markdown"):
        args = (*runs, "--qrels", qrels, "-k", "5", "--permutations", "500", "--format", output)
        first, second = cli("compare", *args), cli("compare", *args)
        assert first.exit_code == 0 and first.stdout == second.stdout
    one = compare_json(cli, *runs, "--qrels", qrels, "-k", "5", "--seed", "1")
    two = compare_json(cli, *runs, "--qrels", qrels, "-k", "5", "--seed", "2")
    assert one["seed"] == 1 and one["pairs"][0]["bootstrap_ci"] != two["pairs"][0]["bootstrap_ci"]


def test_baseline_pairs_every_run_with_it(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels, runs = random_runs(tmp_path, 3, 12, seed=2)
    data = compare_json(cli, *runs, "--qrels", qrels, "-k", "5", "--baseline", runs[1])
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        (str(runs[0]), str(runs[1])), (str(runs[2]), str(runs[1])),
    ]  # fmt: skip
    everything = compare_json(cli, *runs, "--qrels", qrels, "-k", "5")
    assert [(p["a"], p["b"]) for p in everything["pairs"]] == [
        (str(a), str(b)) for a, b in itertools.combinations(runs, 2)
    ]


def test_every_format_parses(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels, runs = random_runs(tmp_path, 2, 10, seed=4)
    odd = runs[1].rename(tmp_path / "r_1&50%#$~^{x}\\.trec")
    args = (runs[0], odd, "--qrels", qrels, "-k", "5")
    data = compare_json(cli, *args)
    assert set(data) == {
        "contract", "qrels_digest", "fingerprint", "population", "runs", "pairs", "correction",
        "permutations", "bootstrap", "seed",
    }  # fmt: skip
    assert (data["permutations"], data["bootstrap"], data["seed"]) == (10_000, 10_000, 0)
    latex = cli("compare", *args, "--format", "latex").stdout
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert latex.count(rule) == 2
    assert data["fingerprint"] in latex and data["qrels_digest"] in latex
    assert r"r\_1\&50\%\#\$\textasciitilde{}\textasciicircum{}\{x\}\textbackslash{}.trec" in latex
    assert "superscript" in latex
    markdown = cli("compare", *args, "--format", "markdown").stdout
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 2 + 2 + 1  # two tables: header, rule, rows
    assert data["fingerprint"] in markdown
    table = cli("compare", *args).stdout
    assert "What the columns mean" in table and "verdict" in table and "W/T/L" in table
    assert "population 10 queries" in table


def test_every_pair_in_words_in_every_format(
    cli: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the README's pair: BM25 ahead with the holes at 0, not significant, 38 holes in the way
    monkeypatch.chdir(DEMO)  # the runs named as the README names them
    demo = ("bm25.trec", "splade-pp-ed.trec", "--qrels", "qrels.txt")
    words = (
        "bm25.trec ahead of splade-pp-ed.trec by 0.227, not significant (p_adj 0.094); "
        "38 holes could still reverse it"
    )
    (pair,) = compare_json(cli, *demo, "--unjudged", "zero")["pairs"]
    assert pair["sentence"] == words
    table = cli("compare", *demo, "--unjudged", "zero").stdout
    assert f"in words\na  b  {words}\n" in table
    assert "  in words      each pair in one sentence: significant when rand p adj" in table
    markdown = cli("compare", *demo, "--unjudged", "zero", "--format", "markdown").stdout
    assert f"| could flip | {words} |" in markdown
    # one run better on every one of ten fully judged queries: significant, settled
    judgments = {f"q{q}": {"good": 3, "bad": 0} for q in range(10)}
    qrels = write_qrels(tmp_path / "qrels", judgments)
    better = write_run(tmp_path / "better", [r for q in judgments for r in ranked(q, ["good"])])
    worse = write_run(tmp_path / "worse", [r for q in judgments for r in ranked(q, ["bad"])])
    (pair,) = compare_json(cli, worse, better, "--qrels", qrels)["pairs"]
    assert pair["randomization_p_adjusted"] == 2 / 2**10  # every sign assignment enumerated
    assert pair["sentence"] == (
        f"{better} ahead of {worse} by 1.000, significant (p_adj 0.002); settled by the judgments"
    )


def test_the_population_says_what_is_left_out(cli: Callable[..., Result], tmp_path: Path) -> None:
    judgments = {f"q{i}": {"a": 1, "b": 0} for i in range(15)} | {"z": {"b": 0}}
    qrels = write_qrels(tmp_path / "qrels", judgments)
    full = write_run(tmp_path / "full", [r for q in judgments for r in ranked(q, ["a", "b"])])
    part = write_run(tmp_path / "part", [r for q in ["q0", "q1", "z"] for r in ranked(q, ["b"])])
    args = (full, part, "--qrels", qrels, "-k", "2", "--missing", "skip", "--zero-idcg", "exclude",
            "--unjudged", "zero")  # fmt: skip
    data = compare_json(cli, *args)
    assert data["population"]["queries"] == 2
    left = {entry["query_id"]: entry["reason"] for entry in data["population"]["left_out"]}
    assert "z" in left and "zero IDCG" in left["z"]
    assert "missing=skip" in left["q5"]
    table = cli("compare", *args).stdout
    assert "left out   14 queries" in table and "… and 3 more" in table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("one",), "compare needs at least 2 runs; 1 given"),
        (("one", "one"), "is named twice"),
        (("one", "two", "--baseline", "three"), "--baseline 'three' is not one of the runs"),
    ],
)
def test_bad_usage_exits_2(
    cli: Callable[..., Result], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    qrels, runs = random_runs(tmp_path, 2, 3, seed=0)
    named = {"one": str(runs[0]), "two": str(runs[1]), "three": "three"}
    result = cli("compare", *[named.get(a, a) for a in args], "--qrels", qrels)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_both_engines_print_the_same_json_on_the_dl19_runs(cli: Callable[..., Result]) -> None:
    runs = sorted((DL19 / "runs").glob("*.trec.gz"))
    assert len(runs) == 6
    args = (*runs, "--qrels", DL19 / "qrels.dl19-passage.txt.gz", "--unjudged", "zero")
    fast = compare_json(cli, *args, "--permutations", "2000", "--bootstrap", "2000")
    reference = compare_json(cli, *args, "--permutations", "2000", "--bootstrap", "2000",
                             "--engine", "reference")  # fmt: skip
    assert fast == reference
    assert len(fast["pairs"]) == 15 and fast["population"]["queries"] == 43
    assert {p["verdict"] for p in fast["pairs"]} == {"settled", "could flip"}


def test_stored_runs_compare_as_their_files(cli: Callable[..., Result], tmp_path: Path) -> None:
    ws = tmp_path / "ws.sqlite"
    bm25, splade = SAMPLE / "bm25.top20.trec", SAMPLE / "splade-pp-ed.top20.trec"
    for args in (("init", ws), ("import", ws, "qrels", SAMPLE / "qrels.txt"),
                 ("import", ws, "run", bm25, "--name", "bm25"),
                 ("import", ws, "run", splade, "--name", "splade")):  # fmt: skip
        assert cli(*args).exit_code == 0
    exported = tmp_path / "exported.qrels"
    assert cli("export", ws, "qrels", "-o", exported).exit_code == 0
    common = ("--unjudged", "zero", "--permutations", "500")
    stored = compare_json(cli, "--workspace", ws, *common)  # every stored run
    files = compare_json(cli, bm25, splade, "--qrels", exported, *common)
    assert [r["run"] for r in stored["runs"]] == ["bm25", "splade"]
    named = ("a", "b", "run", "sentence")  # the runs' names, and the sentence naming them
    for key in ("pairs", "runs"):
        for a, b in zip(stored[key], files[key], strict=True):
            assert {k: v for k, v in a.items() if k not in named} == {
                k: v for k, v in b.items() if k not in named
            }
    assert stored["pairs"][0]["sentence"].startswith("splade ahead of bm25 by 0.225")
    assert stored["fingerprint"] == files["fingerprint"]


def test_a_real_process_prints_json_and_refuses_with_exit_2(tmp_path: Path) -> None:
    qrels, runs = random_runs(tmp_path, 2, 6, seed=8)
    command = [sys.executable, "-m", "judgepool", "compare", *map(str, runs), "--qrels", str(qrels)]
    done = subprocess.run([*command, "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["population"]["queries"] == 6
    refused = subprocess.run([*command[:-4], str(runs[0]), "--qrels", str(qrels)],
                             capture_output=True, text=True)  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.strip() == "judgepool: compare needs at least 2 runs; 1 given"
