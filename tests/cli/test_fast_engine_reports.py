"""The bug report's reproductions: IDs of other lengths on one side (the run or
the judgments) must not make judged documents unjudged, from the command line,
under both engines, on the real DL20 BM25 run with its IDs rewritten to MS
MARCO v2 and URL shapes (see tests/core/test_fast_hashing.py for the hasher)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from judgepool.core.terms.contract import Scale, preset
from judgepool.formats.trec import read_qrels
from tests.core.fast_equivalence import check_same_as_reference

DATA = Path(__file__).resolve().parents[1] / "data"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_report_one_judged_id_longer_than_8_bytes(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    qrels = write(tmp_path / "q", "q1 0 d1 1\nq1 0 d123456789 0\n")
    run = write(tmp_path / "r", "q1 Q0 d1 1 1.0 r\n")
    for engine in ("fast", "reference"):
        result = cli("score", run, "--qrels", qrels, "--engine", engine, "--format", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["summary"]["ndcg"] == 1.0


def _dl20(tmp_path: Path, rewrite: Callable[[str], str], extra: str) -> tuple[Path, Path]:
    """DL20's BM25 run and qrels with every document ID rewritten (order kept,
    so trec_eval's tie order is unchanged), and one extra judged line."""
    qrels_lines = gzip.decompress((DATA / "dl20-passage/qrels.dl20-passage.txt.gz").read_bytes())
    run_lines = gzip.decompress((DATA / "dl20-passage/runs/bm25.top100.trec.gz").read_bytes())
    qrels = []
    for line in qrels_lines.decode().splitlines():
        q, it, d, g = line.split()
        qrels.append(f"{q} {it} {rewrite(d)} {g}\n")
    run = []
    for line in run_lines.decode().splitlines():
        q, q0, d, *rest = line.split()
        run.append(f"{q} {q0} {rewrite(d)} {' '.join(rest)}\n")
    return (
        write(tmp_path / "qrels", "".join(qrels) + extra),
        write(tmp_path / "bm25.trec", "".join(run)),
    )


URL_PREFIX = "https://collection.example.org/msmarco/passages/v1/by-id"  # 56 bytes
LONG_URL = URL_PREFIX + "/a-judged-url-longer-than-sixty-four-bytes"


@pytest.mark.parametrize(
    ("rewrite", "extra"),
    [
        # judged IDs up to 9 bytes, the run's up to 8
        (lambda d: d, "23849 0 123456789 0\n"),
        # every ID 20 to 26 bytes, and one judged URL over 64
        (lambda d: f"msmarco_passage_00_{d}", f"23849 0 {LONG_URL} 0\n"),
        # the run's IDs 58 to 64 bytes, one judged ID over 64
        (lambda d: f"{URL_PREFIX}/{d}", f"23849 0 {LONG_URL} 0\n"),
    ],
    ids=["dl20-ids", "msmarco-v2", "url"],
)
def test_report_dl20_bm25_keeps_its_published_score(
    tmp_path: Path,
    cli: Callable[..., Result],
    rewrite: Callable[[str], str],
    extra: str,
) -> None:
    qrels, run = _dl20(tmp_path, rewrite, extra)
    for engine in ("fast", "reference"):
        result = cli(
            "score", run, "--qrels", qrels, "--preset", "trec_eval", "--engine", engine,
            "--format", "json",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert round(json.loads(result.stdout)["summary"]["ndcg"], 4) == 0.4796
    judgments = read_qrels(qrels, Scale(0, 3)).judgments
    check_same_as_reference(run, judgments, preset("trec_eval"))
