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
    "p_a_ahead", "expected_diff", "expected_diff_interval", "probable_leader", "sentence",
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
        "contract", "qrels_digest", "fingerprint", "judgments", "population", "runs", "pairs",
        "correction", "permutations", "bootstrap", "seed", "prior", "draws", "confidence",
        "draws_note",
    }  # fmt: skip
    assert data["judgments"] == {
        "people": 0, "imports": data["judgments"]["imports"], "adjudications": 0, "models": {},
        "with_model": None, "origin": "qrels file",
    }  # fmt: skip
    assert (data["permutations"], data["bootstrap"], data["seed"]) == (10_000, 10_000, 0)
    latex = cli("compare", *args, "--format", "latex").stdout
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert latex.count(rule) == 2
    assert data["fingerprint"] in latex and data["qrels_digest"] in latex
    # labelled with the file name without its extension, LaTeX's specials escaped
    odd_label = r"r\_1\&50\%\#\$\textasciitilde{}\textasciicircum{}\{x\}\textbackslash{}"
    assert f"(b) & {odd_label} &" in latex
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
        "splade-pp-ed.trec is probably better, once the holes are judged: "
        "bm25.trec ahead of splade-pp-ed.trec by 0.227, not significant (p_adj 0.094); "
        "the 38 holes would probably put splade-pp-ed.trec ahead (P > 0.99); next: judge its "
        "38 holes (holes --order settle lists them)"
    )
    (pair,) = compare_json(cli, *demo, "--unjudged", "zero")["pairs"]
    assert pair["sentence"] == words
    table = cli("compare", *demo, "--unjudged", "zero").stdout
    assert f"in words\na  b  {words}\n" in table
    assert "  in words      each pair in one sentence: significant when rand p adj" in table
    markdown = cli("compare", *demo, "--unjudged", "zero", "--format", "markdown").stdout
    assert f"| probable | {words} |" in markdown
    # one run better on every one of ten fully judged queries: significant, settled
    judgments = {f"q{q}": {"good": 3, "bad": 0} for q in range(10)}
    qrels = write_qrels(tmp_path / "qrels", judgments)
    better = write_run(tmp_path / "better", [r for q in judgments for r in ranked(q, ["good"])])
    worse = write_run(tmp_path / "worse", [r for q in judgments for r in ranked(q, ["bad"])])
    (pair,) = compare_json(cli, worse, better, "--qrels", qrels)["pairs"]
    assert pair["randomization_p_adjusted"] == 2 / 2**10  # every sign assignment enumerated
    assert pair["sentence"] == (
        f"{better} is better: {better} ahead of {worse} by 1.000, significant (p_adj 0.002); "
        "settled by the judgments; next: none"
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
    assert {p["verdict"] for p in fast["pairs"]} == {"settled", "probable", "could flip"}
    for pair in fast["pairs"]:
        low = pair["diff_bounds"][0]
        if pair["verdict"] == "settled":  # the draws never contradict the bounds
            assert pair["p_a_ahead"] == (1.0 if low > 0 else 0.0)
        elif pair["verdict"] == "probable":
            assert pair["probable_leader"] == ("a" if pair["p_a_ahead"] >= 0.95 else "b")
            assert min(pair["p_a_ahead"], 1 - pair["p_a_ahead"]) <= 0.05


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
    assert "splade ahead of bm25 by 0.225" in stored["pairs"][0]["sentence"]
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


LATEX_QRELS = "q1 0 d1 3\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 2\nq2 0 d5 0\nq3 0 d6 1\nq3 0 d7 2\n"
LATEX_RUNS = {
    "bm25.trec": {"q1": ["d1", "d2", "d3"], "q2": ["d5", "d4"], "q3": ["d6", "d7"]},
    "lr=0.1/dense.trec.gz": {"q1": ["d2", "d1", "u1"], "q2": ["d4", "d5"], "q3": ["d7", "d6"]},
    "tuned.run": {"q1": ["d3", "d1", "d2"], "q2": ["u2", "d4"], "q3": ["d7", "u3"]},
}
# every number hand-checkable: bm25's q1 is ideal (1.0), its q2 2/log2(3)/2 =
# 0.6309, its q3 (1 + 2/log2(3)) / (2 + 1/log2(3)) = 0.8597; mean 0.8302
LATEX_EXPECTED = r"""% judgepool compare: contract fingerprint {fingerprint}, qrels digest {qrels}
% judgments: 7 grades from the qrels file
% (a) bm25: {bm25}, run digest {bm25_digest}
% (b) Dense_{{v2}} & 50%: {dense}, run digest {dense_digest}
% (c) tuned: {tuned}, run digest {tuned_digest}
\begin{{table}}[t]
\centering
\begin{{tabular}}{{llrrr}}
\toprule
& Run & nDCG@3 & 95\% CI & Bounds \\
\midrule
(a) & bm25 & 0.8302 & [0.367, 1.293] & [0.481, 0.830] \\
(b) & Dense\_\{{v2\}} \& 50\% & 0.9322 & [0.641, 1.224] & [0.606, 0.940] \\
(c) & tuned & 0.6834 & [0.514, 0.852] & [0.612, 0.842] \\
\bottomrule
\end{{tabular}}
\caption{{nDCG@3 over 3 queries. A superscript letter marks a run significantly better than the run of that letter (two-sided paired randomisation test, 100 permutations, $p < 0.05$ after Holm's correction). Bounds: the range of the mean once every unjudged document is judged. Contract fingerprint \texttt{{{fingerprint12}}}, qrels digest \texttt{{{qrels12}}}.}}
\end{{table}}

\begin{{table}}[t]
\centering
\begin{{tabular}}{{llrrrrl}}
\toprule
A & B & $\Delta$ & $p$ (adj.) & Bounds of $\Delta$ & $P(A > B)$ & Verdict \\
\midrule
bm25 & Dense\_\{{v2\}} \& 50\% & -0.1020 & 1.0000 & [-0.217, -0.016] & 0.000 & settled \\
bm25 & tuned & 0.1468 & 1.0000 & [-0.272, 0.147] & 0.197 & could flip \\
Dense\_\{{v2\}} \& 50\% & tuned & 0.2489 & 0.7500 & [-0.219, 0.327] & 0.539 & could flip \\
\bottomrule
\end{{tabular}}
\caption{{Differences of nDCG@3 (A $-$ B), their randomisation $p$-values adjusted by Holm's correction, and their bounds once the unjudged documents are judged: settled when the sign cannot change. $P(A > B)$: the share of 10{{,}}000 draws of the unjudged documents' grades (each independently, from the rank prior) in which A is ahead; probable when it is at least 0.95 or at most 0.05. Contract fingerprint \texttt{{{fingerprint12}}}, qrels digest \texttt{{{qrels12}}}.}}
\end{{table}}
"""  # noqa: E501 - the captions are one line each, as printed


def latex_case(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    import gzip

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(LATEX_QRELS)
    runs: dict[str, Path] = {}
    for name, lists in LATEX_RUNS.items():
        path = tmp_path / "runs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(
            f"{q} Q0 {d} {i + 1} {len(docs) - i} t\n" for q, docs in lists.items()
            for i, d in enumerate(docs)
        )  # fmt: skip
        if name.endswith(".gz"):
            with gzip.open(path, "wt") as handle:
                handle.write(text)
        else:
            path.write_text(text)
        runs[name] = path
    return qrels, runs


def test_latex_labels_and_digests_exactly(cli: Callable[..., Result], tmp_path: Path) -> None:
    # issue 17, point 12: runs named by --label FILE=NAME (default: the file
    # name without its extension), LaTeX's specials escaped in them; the
    # captions' digests 12 hex digits, the full ones in comment lines
    qrels, runs = latex_case(tmp_path)
    paths = [runs["bm25.trec"], runs["lr=0.1/dense.trec.gz"], runs["tuned.run"]]
    common = ("--qrels", qrels, "-k", "3", "--unjudged", "zero", "--permutations", "100",
              "--bootstrap", "100")  # fmt: skip
    data = compare_json(cli, *paths, *common)
    scored = cli("score", *paths, *common[:6], "--format", "json")
    digests = [json.loads(line)["run_digest"] for line in scored.stdout.splitlines()]
    # a FILE holding '=' itself (lr=0.1/): the label is after the last '=' that
    # ends a compared run's name
    label = f"{runs['lr=0.1/dense.trec.gz']}=Dense_{{v2}} & 50%"
    result = cli("compare", *paths, *common, "--format", "latex", "--label", label)
    assert result.exit_code == 0, result.output
    assert result.stdout == LATEX_EXPECTED.format(
        fingerprint=data["fingerprint"], fingerprint12=data["fingerprint"][:12],
        qrels=data["qrels_digest"], qrels12=data["qrels_digest"][:12],
        bm25=paths[0], dense=paths[1], tuned=paths[2],
        bm25_digest=digests[0], dense_digest=digests[1], tuned_digest=digests[2],
    )  # fmt: skip
    # another name of a compared file labels it too
    other = tmp_path / "runs" / "." / "bm25.trec"
    renamed = cli("compare", *paths, *common, "--format", "latex", "--label", f"{other}=BM25")
    assert renamed.exit_code == 0, renamed.output
    assert "(a) & BM25 & 0.8302" in renamed.stdout and "\nBM25 & tuned & 0.1468" in renamed.stdout


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (["nowhere.trec=X"], "'nowhere.trec=X' labels no run compared here"),
        (["bm25"], "'bm25' is not FILE=NAME"),
        (["{bm25}=  "], "gives an empty label"),
        (["{bm25}=A", "{bm25}=B"], "is labelled twice ('A' and 'B')"),
        (["{bm25}=Same", "{tuned}=Same"], "would both be labelled 'Same'"),
    ],
)
def test_a_bad_label_is_refused_with_exit_2(
    cli: Callable[..., Result], tmp_path: Path, labels: list[str], message: str
) -> None:
    qrels, runs = latex_case(tmp_path)
    paths = [runs["bm25.trec"], runs["tuned.run"]]
    names = {"bm25": paths[0], "tuned": paths[1]}
    given = [part for text in labels for part in ("--label", text.format(**names))]
    result = cli("compare", *paths, "--qrels", qrels, "--format", "latex", *given)
    assert result.exit_code == 2 and message in result.stderr, result.output
    other = cli("compare", *paths, "--qrels", qrels, "--label", f"{paths[0]}=B")
    assert other.exit_code == 2
    assert "--label applies to --format latex" in other.stderr


def test_labels_the_defaults_would_share_are_the_names_given(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, runs = latex_case(tmp_path)
    twin = tmp_path / "other" / "bm25.trec"
    twin.parent.mkdir()
    twin.write_text(runs["tuned.run"].read_text())
    args = (runs["bm25.trec"], twin, runs["tuned.run"], "--qrels", qrels, "--unjudged", "zero")
    result = cli("compare", *args, "--format", "latex")
    assert result.exit_code == 0, result.output
    assert f"(a) & {runs['bm25.trec']} &".replace("_", r"\_") in result.stdout
    assert f"(b) & {twin} &".replace("_", r"\_") in result.stdout
    assert "(c) & tuned &" in result.stdout  # the others keep their default


def test_too_many_pairs_are_refused_before_any_run_is_read(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # issue 17: compare of 10,000 runs (50 M pairs) ran to 9.4 GB before it
    # failed. Each file here would be refused as a bad line if it were read:
    # the refusal (exit 1) counts, estimates and names the ways to narrow it.
    qrels = write_qrels(tmp_path / "qrels", {f"q{i}": {"d": 1} for i in range(43)})
    folder = tmp_path / "runs"
    folder.mkdir()
    paths = []
    for i in range(10_000):
        path = folder / f"r{i}.trec"
        path.write_text("not a run line\n")
        paths.append(path)
    result = cli("compare", *paths, "--qrels", qrels)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(
        "judgepool: compare: 10,000 runs make 49,995,000 pairs, estimated at 8.2 TB of memory "
    )
    assert "--baseline RUN compares every run with one (9,999 pairs)" in result.stderr
    assert "bad line" not in result.output and result.stdout == ""
    # with --baseline the same 10,000 are 9,999 pairs: within the limit, so the
    # runs are read, and the first one's bad line is what stops it
    narrowed = cli("compare", *paths, "--qrels", qrels, "--baseline", paths[0])
    assert narrowed.exit_code == 2 and f"{paths[0]}:1:" in narrowed.stderr, narrowed.output
