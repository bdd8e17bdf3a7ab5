"""DL19 and DL20 as the replay benchmarks load them (``bench_probable.py``,
``bench_honest.py``, ``bench_sample.py``): the six runs' formed top 10 per
query, the full qrels as the truth, the starts that hide judgments (30 %
hidden at random; BM25's depth-5 pool), and the model's labels of a replay: a
simulated judge (the true grade plus Gaussian noise, at a target linear κ) or
a real LLM judge's confusion with NIST's grades (the shared data's
``llmjudge`` folder) carried onto the items.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgepool.core.comparing.bounds import TopK
from judgepool.core.comparing.verdicts import ComparisonReport, RunInput, compare
from judgepool.core.holes.priors import ModelLabels
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.ranking import form_list
from judgepool.core.team.agreement import cohen_kappa
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry
from judgepool.formats.trec import read_qrels, read_run

HERE = Path(__file__).resolve().parent
# the project's shared data folder beside the repository (or a worktree's parents)
DEFAULT_DATA = next(
    (p / "shared" / "data" for p in HERE.parents if (p / "shared" / "data").is_dir()),
    HERE.parents[2] / "shared" / "data",
)
RUNS = {
    "bm25": "bm25.top100",
    "bm25-rm3": "bm25-rm3.top100",
    "tasb": "tasb.top100",
    "openai-ada2": "openai-ada2.top100",
    "splade-pp-ed": "splade-pp-ed.top100",
    "repllama": "repllama.top1000",
}
NAMES = tuple(RUNS)
PAIRS = list(itertools.combinations(range(len(NAMES)), 2))
CONTRACT = Contract(k=10, unjudged="zero")
CONFIDENCE = 0.95
HIDDEN_SHARE = 0.3
POOL_RUN, POOL_DEPTH = "bm25", 5
MODEL = "simulated"

Judged = dict[str, dict[str, int]]


@dataclass(frozen=True)
class Dataset:
    name: str
    qrels: Judged
    runs: dict[str, dict[str, list[RunEntry]]]  # each run's formed top 10 entries per query
    truth: tuple[float, ...]  # each pair's mean difference under the full qrels


def load(data: Path, name: str) -> Dataset:
    folder = data / f"{name}-passage"
    qrels_path = folder / f"qrels.{name}-passage.txt"
    if not qrels_path.is_file():
        sys.exit(f"{qrels_path} not found (use --data DIR)")
    qrels = {q: dict(d) for q, d in read_qrels(qrels_path, CONTRACT.scale).judgments.items()}
    runs: dict[str, dict[str, list[RunEntry]]] = {}
    for run, file in RUNS.items():
        grouped = group_by_query(read_run(folder / "runs" / f"{file}.trec").entries)
        # under unjudged=zero the formed order does not depend on the
        # judgments: each run's top 10 entries, formed once, score as the
        # whole run does (checked below) and make every later step cheap
        runs[run] = {}
        for query, entries in grouped.items():
            if query in qrels:
                formed = form_list(query, entries, qrels[query], CONTRACT)
                keep = {d.entity for d in formed.deduplicated[: CONTRACT.k]}
                runs[run][query] = [e for e in entries if e.doc_id in keep]
        whole = evaluate(grouped, qrels, CONTRACT)
        short = evaluate(runs[run], qrels, CONTRACT)
        assert [r.ndcg for r in whole.per_query] == [r.ndcg for r in short.per_query], run
    report = comparison(runs, qrels, draws=0)
    truth = tuple(p.mean_diff or 0.0 for p in report.pairs)
    assert all(d != 0 for d in truth), "a pair tied under the full qrels"
    return Dataset(name, qrels, runs, truth)


def tops_of(
    runs: Mapping[str, Mapping[str, Sequence[RunEntry]]], judged: Judged
) -> list[dict[str, TopK]]:
    tops = []
    for grouped in runs.values():
        top: dict[str, TopK] = {}
        for query, entries in grouped.items():
            if query in judged:
                formed = form_list(query, entries, judged[query], CONTRACT)
                top[query] = tuple((d.entity, d.grade) for d in formed.deduplicated[: CONTRACT.k])
        tops.append(top)
    return tops


def comparison(
    runs: Mapping[str, Mapping[str, Sequence[RunEntry]]],
    judged: Judged,
    *,
    draws: int,
    seed: int = 0,
    model: ModelLabels | None = None,
    prior_kind: str = "rank",
) -> ComparisonReport:
    tops = tops_of(runs, judged)
    inputs = [
        RunInput(name, evaluate(grouped, judged, CONTRACT), top)
        for (name, grouped), top in zip(runs.items(), tops, strict=True)
    ]
    # the statistics are not what is measured: one permutation, one resample
    return compare(
        inputs, judged, CONTRACT, PAIRS, permutations=1, bootstrap=1, seed=seed,
        draws=draws, confidence=CONFIDENCE, model=model, prior_kind=prior_kind,
    )  # fmt: skip


# -- the starts -----------------------------------------------------------------


def hide_share(qrels: Judged, share: float, seed: int) -> Judged:
    items = [(q, d) for q in sorted(qrels) for d in sorted(qrels[q])]
    hidden = set(random.Random(seed).sample(items, round(share * len(items))))
    return {q: {d: g for d, g in qrels[q].items() if (q, d) not in hidden} for q in qrels}


def pool_of(dataset: Dataset, run: str, depth: int) -> Judged:
    tops = tops_of({run: dataset.runs[run]}, dataset.qrels)[0]
    judged: Judged = {q: {} for q in dataset.qrels}
    for query, top in tops.items():
        for doc, _ in top[:depth]:
            if doc in dataset.qrels[query]:
                judged[query][doc] = dataset.qrels[query][doc]
    return judged


def true_grade(dataset: Dataset, query: str, doc: str) -> int:
    """The qrels' grade; 0 for a document the qrels never judged (as scored)."""
    return dataset.qrels.get(query, {}).get(doc, 0)


# -- the simulated judge ----------------------------------------------------------


def labelled_items(dataset: Dataset) -> list[tuple[str, str]]:
    """Every judged item and every document of the six runs' top 10."""
    items = {(q, d) for q, docs in dataset.qrels.items() for d in docs}
    for grouped in dataset.runs.values():
        for query, entries in grouped.items():
            items.update((query, e.doc_id) for e in entries)
    return sorted(items)


def noisy_labels(truth: np.ndarray, width: float, rng: np.random.Generator) -> np.ndarray:
    low, high = min(CONTRACT.scale.grades), max(CONTRACT.scale.grades)
    return np.clip(np.rint(truth + width * rng.standard_normal(truth.size)), low, high)


def noise_for_kappa(dataset: Dataset, kappa: float) -> tuple[float, float]:
    """The noise width whose labels reach linear κ ``kappa`` with the qrels'
    grades (bisection, with one fixed stream of noise), and the κ reached."""
    people = np.array([g for docs in dataset.qrels.values() for g in docs.values()], float)
    normal = np.random.default_rng(12345).standard_normal(people.size)

    def reached(width: float) -> float:
        low, high = min(CONTRACT.scale.grades), max(CONTRACT.scale.grades)
        labels = np.clip(np.rint(people + width * normal), low, high)
        value = cohen_kappa(people, labels, "linear").value
        return float(value if value is not None else 0.0)

    low, high = 0.0, 5.0
    for _ in range(40):
        middle = (low + high) / 2
        if reached(middle) > kappa:
            low = middle
        else:
            high = middle
    width = (low + high) / 2
    return width, reached(width)


def simulated_judge(dataset: Dataset, width: float, seed: int) -> ModelLabels:
    items = labelled_items(dataset)
    truth = np.array([true_grade(dataset, q, d) for q, d in items], dtype=np.float64)
    labels = noisy_labels(truth, width, np.random.default_rng([seed, 7]))
    graded: dict[str, dict[str, int]] = {}
    for (query, doc), label in zip(items, labels, strict=True):
        graded.setdefault(query, {})[doc] = int(label)
    return ModelLabels(MODEL, graded)


def real_confusion(model_file: Path) -> np.ndarray:
    """P(the model's grade | NIST's grade) of a real LLM judge of the shared
    data's ``llmjudge`` folder (rows NIST's grade 0..3, columns the model's):
    the model's file beside ``nist.qrels``; a grade off the 0..3 scale (two of
    the Llama run's) is left out."""

    def grades(path: Path) -> dict[tuple[str, str], int]:
        found = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            query, _, doc, grade = line.split()
            found[(query, doc)] = int(grade)
        return found

    nist = grades(model_file.with_name("nist.qrels"))
    model = grades(model_file)
    counts = np.zeros((4, 4))
    for item, truth in nist.items():
        label = model.get(item)
        if label is not None and 0 <= label <= 3 and 0 <= truth <= 3:
            counts[truth, label] += 1
    rows: np.ndarray = counts / counts.sum(axis=1, keepdims=True)
    return rows


def judge_labels(dataset: Dataset, width: float, seed: int) -> ModelLabels:
    """The model's labels of a seed: the simulated judge, or with ``--judge
    FILE`` a real judge's confusion carried onto the dataset (each item's
    label drawn from the row of its true grade)."""
    if REAL_JUDGE[0] is None:
        return simulated_judge(dataset, width, seed)
    confusion = REAL_JUDGE[0]
    items = labelled_items(dataset)
    rng = np.random.default_rng([seed, 11])
    cumulative = confusion.cumsum(axis=1)
    graded: dict[str, dict[str, int]] = {}
    for (query, doc), draw in zip(items, rng.random(len(items)), strict=True):
        row = cumulative[true_grade(dataset, query, doc)]
        graded.setdefault(query, {})[doc] = int(min(np.searchsorted(row, draw, side="right"), 3))
    return ModelLabels(MODEL, graded)


# a real judge's confusion (``--judge FILE``), or None for the simulated judge
REAL_JUDGE: list[np.ndarray | None] = [None]
