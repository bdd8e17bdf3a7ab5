"""Rebuild ``sample_data/`` from the project's copy of the public source data.

Run once by hand (``python sample_data/build.py [--source DIR]``); the product
reads the files this writes, never this script. It copies NovelEval and the
TREC DL 2019 passage slice, cuts the DL19 runs to the top ``TOP_N`` ranks (plus
any document tied with rank ``TOP_N``), and writes the two sets we made up
(teaching, hostile). Every output is deterministic, so a rebuild that changes a
byte is a real change. What each file is, and its provenance and terms, are in
``README.md`` beside it.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = Path("/work/shared/data")

TOP_N = 20
# Output name -> source file under dl19-passage/runs/.
DL19_RUNS = {
    "bm25.top20.trec": "bm25.top100.trec",
    "splade-pp-ed.top20.trec": "splade-pp-ed.top100.trec",
    "repllama.top20.trec": "repllama.top1000.trec",
}

# Characters that would split a record for some reader: raw line ends and the
# TSV separator. C1 controls in MS MARCO mojibake (U+0085 among them) are kept
# on purpose and are documented in README.md.
FORBIDDEN_IN_FIELD = ("\n", "\r", "\t")

TEACHING_QUERY = ("teach", "how do I brew a good cup of green tea")
TEACHING_DOCS = {
    "A": (
        3,
        "Brewing green tea: heat water to about 75-80 C (not boiling), use one"
        " teaspoon of leaves per cup, steep for two to three minutes, then remove"
        " the leaves so the tea does not turn bitter.",
    ),
    "B": (
        2,
        "Green tea turns bitter when the water is too hot; let boiled water cool"
        " for a few minutes before pouring it over the leaves.",
    ),
    "C": (
        1,
        "Green tea and black tea come from the same plant, Camellia sinensis;"
        " green tea leaves are heated soon after picking instead of being oxidised.",
    ),
    "D": (
        0,
        "To descale a coffee machine, run a mixture of water and citric acid"
        " through it, then rinse twice with clean water.",
    ),
}
# (file name, tag, doc IDs in rank order)
TEACHING_RUNS = (
    ("candidates-bc.trec", "candidates-bc", ("B", "C")),
    ("perfect-ab.trec", "perfect-ab", ("A", "B")),
)

ESC, BEL, BS, CSI8 = "\x1b", "\x07", "\x08", "\u009b"
HOSTILE_QUERY = (
    "hostile",
    f"which [bold]document[/bold] shows its {ESC}[1mmarkup{ESC}[0m literally?",
)
# (doc ID, grade, text). The third ID is itself markup: IDs are shown too.
HOSTILE_DOCS = (
    (
        "hostile-markup",
        2,
        "Rich markup that must show as typed: [bold]not bold[/bold],"
        " [italic]not italic[/italic], [red on white]not coloured[/],"
        " [link=https://example.com]x[/link], [@click=app.quit]not an action[/],"
        " :warning: not an emoji, an escaped \\[bold] bracket and a stray [/] close.",
    ),
    (
        "hostile-escapes",
        1,
        f"Terminal escapes written as real control characters: {ESC}[31mred{ESC}[0m;"
        f" window title {ESC}]0;pwned title{BEL}; backspaces abc{BS}{BS}{BS}XYZ;"
        f" clear screen {ESC}[2J; cursor home {ESC}[H; 8-bit CSI {CSI8}32mgreen;"
        f" hyperlink {ESC}]8;;https://example.com{BEL}click{ESC}]8;;{BEL}; bell {BEL}.",
    ),
    (
        "[red]hostile-id[/red]",
        0,
        f"My ID is Rich markup and my text mixes both kinds: [blink]{ESC}[5mblink"
        f"{ESC}[25m[/blink], [reverse]{ESC}[7mreverse{ESC}[27m[/reverse].",
    ),
)


def check_field(value: str, where: str) -> str:
    """The value, if it cannot break a one-line, tab-separated record."""
    for char in FORBIDDEN_IN_FIELD:
        if char in value:
            raise SystemExit(f"{where}: field contains {char!r}")
    return value


def tsv(rows: Iterable[tuple[str, str]], where: str) -> bytes:
    """``id<TAB>text`` lines, each checked, as UTF-8."""
    out = io.StringIO()
    for key, text in rows:
        out.write(f"{check_field(key, where)}\t{check_field(text, where)}\n")
    return out.getvalue().encode("utf-8")


def write(path: Path, data: bytes, *, gzipped: bool = False) -> None:
    """Write bytes; gzip with a fixed mtime and no name so rebuilds are identical."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if gzipped:
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as handle:
            handle.write(data)
        data = buffer.getvalue()
    path.write_bytes(data)


def read_two_columns(path: Path) -> list[tuple[str, str]]:
    """``id<TAB>text`` rows of a plain (unquoted) TSV."""
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line:
            key, text = line.split("\t", 1)
            rows.append((key, text))
    return rows


def build_teaching(out: Path) -> None:
    write(out / "queries.tsv", tsv([TEACHING_QUERY], "teaching queries"))
    write(
        out / "docs.tsv",
        tsv(((doc, text) for doc, (_, text) in TEACHING_DOCS.items()), "teaching docs"),
    )
    qid = TEACHING_QUERY[0]
    qrels = "".join(f"{qid} 0 {doc} {grade}\n" for doc, (grade, _) in TEACHING_DOCS.items())
    write(out / "qrels.txt", qrels.encode())
    for name, tag, docs in TEACHING_RUNS:
        lines = [
            f"{qid} Q0 {doc} {rank} {len(docs) - rank + 1}.0 {tag}\n"
            for rank, doc in enumerate(docs, start=1)
        ]
        write(out / name, "".join(lines).encode())


def build_hostile(out: Path) -> None:
    write(out / "queries.tsv", tsv([HOSTILE_QUERY], "hostile queries"))
    write(out / "docs.tsv", tsv(((doc, text) for doc, _, text in HOSTILE_DOCS), "hostile docs"))
    qid = HOSTILE_QUERY[0]
    write(out / "qrels.txt", "".join(f"{qid} 0 {d} {g}\n" for d, g, _ in HOSTILE_DOCS).encode())
    run = [
        f"{qid} Q0 {doc} {rank} {len(HOSTILE_DOCS) - rank + 1}.0 hostile\n"
        for rank, (doc, _, _) in enumerate(HOSTILE_DOCS, start=1)
    ]
    write(out / "hostile.trec", "".join(run).encode())


def build_noveleval(source: Path, out: Path) -> None:
    shutil.copyfile(source / "queries.tsv", out / "queries.tsv")
    shutil.copyfile(source / "qrels.txt", out / "qrels.txt")
    shutil.copyfile(source / "google-order.run.trec", out / "google-order.trec")
    # The upstream corpus is written by a CSV writer: 80 texts are quoted with
    # inner quotes doubled, and one (14-17, a table) holds tabs. We store the
    # decoded text so a plain "split at the first tab" reader gets it right.
    with open(source / "corpus.tsv", encoding="utf-8", newline="") as handle:
        rows = [(key, text.replace("\t", " ")) for key, text in csv.reader(handle, "excel-tab")]
    write(out / "docs.tsv", tsv(rows, "noveleval docs"))


def build_dl19(source: Path, passages: Path, out: Path) -> None:
    qrels_lines = (source / "qrels.dl19-passage.txt").read_text().splitlines()
    judged = {line.split()[0] for line in qrels_lines if line.strip()}
    queries = [row for row in read_two_columns(source / "queries.dl19.tsv") if row[0] in judged]
    write(out / "queries.tsv", tsv(queries, "dl19 queries"))
    shutil.copyfile(source / "qrels.dl19-passage.txt", out / "qrels.txt")

    wanted: set[str] = set()
    for name, source_name in DL19_RUNS.items():
        lines = (source / "runs" / source_name).read_text().splitlines(keepends=True)
        # RepLLaMA scores have 3 decimals, so ties cross rank 20. trec_eval
        # reorders a tie group by doc ID, so cutting inside one could change even
        # nDCG@10; every document tied with the one at rank TOP_N is kept.
        threshold: dict[str, float] = {}
        for line in lines:
            query_id, _, _, rank, score, _ = line.split()
            if int(rank) == TOP_N:
                threshold[query_id] = float(score)
        kept = []
        for line in lines:
            query_id, _, doc_id, rank, score, _ = line.split()
            if int(rank) <= TOP_N or float(score) >= threshold[query_id]:
                kept.append(line)
                wanted.add(doc_id)
        write(out / name, "".join(kept).encode())

    texts: dict[str, str] = {}
    with gzip.open(passages, "rt", encoding="utf-8", newline="") as handle:
        # Split on "\n" only: the mojibake holds U+0085, which str.splitlines
        # (and so a text-mode iteration with some settings) would treat as a line end.
        for line in handle.read().split("\n"):
            if line:
                pid, text = line.split("\t", 1)
                if pid in wanted:
                    texts[pid] = text
    missing = sorted(wanted - texts.keys(), key=int)
    if missing:
        print(f"dl19: {len(missing)} retrieved passages have no text: {missing}", file=sys.stderr)
    rows = [(pid, texts[pid]) for pid in sorted(texts, key=int)]
    write(out / "docs.tsv.gz", tsv(rows, "dl19 docs"), gzipped=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    source: Path = args.source
    out: Path = args.out
    for part in ("teaching", "noveleval", "dl19", "hostile"):
        (out / part).mkdir(parents=True, exist_ok=True)
    build_teaching(out / "teaching")
    build_hostile(out / "hostile")
    build_noveleval(source / "noveleval", out / "noveleval")
    build_dl19(
        source / "dl19-passage",
        source / "passages" / "msmarco-passage.subset.tsv.gz",
        out / "dl19",
    )


if __name__ == "__main__":
    main()
