"""Rebuild the conformance inputs of ``tests/data`` from the shared data folder.

Not a test: run it by hand (``python tests/data/prepare.py SOURCE``, SOURCE being
the data folder described in PROVENANCE.md) when the inputs must be rebuilt.
It records exactly what was changed on the way in: runs and qrels are
gzip-compressed byte for byte (fixed mtime, so a rebuild gives identical files),
and trec_eval's ``all_trec`` outputs are cut down to the measures the tests read,
in one long table per dataset. The tests never read SOURCE.
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Measures whose value does not depend on trec_eval's -l (nDCG uses the grades
# themselves; unj_k counts unjudged documents) are kept from the plain output
# only; those that do are kept from both the plain and the -l2 output.
LEVEL_FREE = re.compile(r"^(num_q|num_ret|ndcg_cut_\d+|unj_\d+)$")
LEVEL_BOUND = re.compile(r"^(num_rel|recip_rank|P_\d+|recall_\d+)$")

DL_RUNS = (
    "bm25.top100",
    "bm25-rm3.top100",
    "tasb.top100",
    "openai-ada2.top100",
    "splade-pp-ed.top100",
    "repllama.top1000",
)
DL_HARD_RUNS = ("bm25", "bm25+rm3", "bm25+bertzs", "bm25+t5zs", "bm25+rm3+bertzs", "bm25+rm3+t5zs")
TREC_EVAL_OUT = ("out.test.aq", "out.test.aqc", "out.test.aql", "out.test.meas_params")


def read_maybe_gzip(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def write_gzip(data: bytes, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def oracle_rows(path: Path, level: int, run: str, pattern: re.Pattern[str]) -> list[str]:
    rows = []
    for line in read_maybe_gzip(path).decode("utf-8").splitlines():
        measure, query, value = line.split()
        if pattern.match(measure):
            rows.append(f"{run}\t{level}\t{measure}\t{query}\t{value}")
    return rows


def write_oracle(rows: list[str], target: Path) -> None:
    header = "run\trelevance_level\tmeasure\tquery\tvalue"
    write_gzip(("\n".join([header, *rows]) + "\n").encode("utf-8"), target)


def prepare_dl(source: Path, name: str, qrels: str) -> None:
    src, out = source / name, HERE / name
    write_gzip(read_maybe_gzip(src / qrels), out / f"{qrels}.gz")
    rows: list[str] = []
    for run in DL_RUNS:
        write_gzip(read_maybe_gzip(src / "runs" / f"{run}.trec"), out / "runs" / f"{run}.trec.gz")
        oracle = src / "oracle-trec_eval" / "v10.0"
        plain = oracle / f"{run}.c.q.all_trec.txt.gz"
        level2 = oracle / f"{run}.c.q.l2.all_trec.txt.gz"
        rows += oracle_rows(plain, 1, run, LEVEL_FREE)
        rows += oracle_rows(plain, 1, run, LEVEL_BOUND)
        rows += oracle_rows(level2, 2, run, LEVEL_BOUND)
    write_oracle(rows, out / "oracle.tsv.gz")


def prepare_dl_hard(source: Path) -> None:
    src, out = source / "dl-hard", HERE / "dl-hard"
    write_gzip(read_maybe_gzip(src / "dl_hard-passage.qrels"), out / "dl_hard-passage.qrels.gz")
    rows: list[str] = []
    for run in DL_HARD_RUNS:
        # already gzip upstream: copied as they are
        shutil.copyfile(
            src / "runs" / "passage" / f"{run}.trec.gz", out / "runs" / f"{run}.trec.gz"
        )
        oracle = src / "oracle-trec_eval" / "v10.0" / f"passage.{run}.l2.M1000.txt.gz"
        rows += oracle_rows(oracle, 2, run, LEVEL_FREE)
        rows += oracle_rows(oracle, 2, run, LEVEL_BOUND)
    write_oracle(rows, out / "oracle.tsv.gz")


def prepare_noveleval(source: Path) -> None:
    src, out = source / "noveleval", HERE / "noveleval"
    write_gzip(read_maybe_gzip(src / "qrels.txt"), out / "qrels.txt.gz")
    write_gzip(read_maybe_gzip(src / "google-order.run.trec"), out / "google-order.run.trec.gz")
    oracle = src / "oracle-trec_eval" / "google-order.v10.0.c.q.all_trec.txt"
    rows = oracle_rows(oracle, 1, "google-order", LEVEL_FREE)
    rows += oracle_rows(oracle, 1, "google-order", LEVEL_BOUND)
    write_oracle(rows, out / "oracle.tsv.gz")


def prepare_trec_eval_test(source: Path) -> None:
    src, out = source / "trec_eval-test", HERE / "trec_eval-test"
    out.mkdir(parents=True, exist_ok=True)
    for name in ("qrels.test", "qrels.rel_level", "results.test", "results.trunc"):
        write_gzip(read_maybe_gzip(src / name), out / f"{name}.gz")
    # trec_eval's own expected outputs are small: kept verbatim, with the licence
    for name in (*TREC_EVAL_OUT, "LICENSE.trec_eval.md"):
        shutil.copyfile(src / name, out / name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("source", type=Path, help="the shared data folder (see PROVENANCE.md)")
    source = parser.parse_args().source
    (HERE / "dl-hard" / "runs").mkdir(parents=True, exist_ok=True)
    prepare_dl(source, "dl19-passage", "qrels.dl19-passage.txt")
    prepare_dl(source, "dl20-passage", "qrels.dl20-passage.txt")
    prepare_dl_hard(source)
    prepare_noveleval(source)
    prepare_trec_eval_test(source)


if __name__ == "__main__":
    main()
