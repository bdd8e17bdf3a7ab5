"""Rebuild ``sample_data/`` (and the test fixtures once kept there) from the
project's copy of the public source data.

Run once by hand (``python sample_data/build.py [--source DIR]``); the product
reads the files this writes, never this script. It writes:

- ``sample_data/teaching/``: the four-document example we wrote (README.md's example);
- ``sample_data/dl19/``: the demo, a slice of TREC DL 2019 passage
  (`DEMO_QUERIES`) with two runs of the original pool era (BM25, BM25+RM3) and
  two modern ones (SPLADE++ ED, RepLLaMA), each cut to the top ``TOP_N``. Its
  ``qrels.txt`` keeps only the judgments of the depth-``POOL_DEPTH`` pool of
  the old runs (`POOLED_RUNS`); the other judgments of these queries are in
  ``hidden.qrels``, which the demo does not import, so the modern runs have
  holes whose true grades are known;
- ``tests/fixtures/``: the sets the tests use that are not the demo: NovelEval,
  the 43-query DL19 slice of three runs (``dl19-top20``), the hostile set and
  its companion of deceiving Unicode (``hostile-unicode``).

Every output is deterministic, so a rebuild that changes a byte is a real
change. What each file is, and its provenance and terms, are in ``README.md``
beside it (``tests/fixtures/README.md`` for the fixtures).
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
FIXTURES = HERE.parent / "tests" / "fixtures"


def default_source() -> Path:
    """The project's ``shared/data`` beside the repository: the first ancestor
    of the checkout that holds one (a worktree may sit a level deeper)."""
    for folder in HERE.parents:
        candidate = folder / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return HERE.parents[1] / "shared" / "data"


TOP_N = 20
# Output name -> source file under dl19-passage/runs/ (the 43-query fixture).
DL19_RUNS = {
    "bm25.top20.trec": "bm25.top100.trec",
    "splade-pp-ed.top20.trec": "splade-pp-ed.top100.trec",
    "repllama.top20.trec": "repllama.top1000.trec",
}

# The demo: six DL19 queries whose old runs' top 10 is fully judged and whose
# modern runs' top 10 is too (so every hole has a true grade in hidden.qrels).
# Chosen so that the story happens: tests/sample_data/test_demo_story.py.
DEMO_QUERIES = ("1106007", "168216", "207786", "359349", "405717", "962179")
DEMO_RUNS = {
    "bm25.trec": "bm25.top100.trec",
    "bm25-rm3.trec": "bm25-rm3.top100.trec",
    "splade-pp-ed.trec": "splade-pp-ed.top100.trec",
    "repllama.trec": "repllama.top1000.trec",
}
POOLED_RUNS = ("bm25.trec", "bm25-rm3.trec")  # the runs whose top 10 was judged
POOL_DEPTH = 10

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

# The hostile set's companion: text whose look deceives. Two MS MARCO passages
# whose mojibake the app repairs (`UNICODE_PASSAGES`, copied unchanged), a
# Tamil couplet whose vowel signs terminals draw at different widths, bidi and
# zero-width characters, wide and combining ones, and IDs that look alike.
UNICODE_QUERY = ("visceral", "what does visÂ·cerÂ·al mean, in தமிழ் or עברית?")
# 2672608 is the issue's "visÂ·cerÂ·al"; 7685383's repair holds a LEFT-TO-RIGHT MARK.
UNICODE_PASSAGES = ("2672608", "7685383")
LRM, RLM, ALM = "\u200e", "\u200f", "\u061c"
ZWSP, ZWNJ, ZWJ, WJ = "\u200b", "\u200c", "\u200d", "\u2060"
VS16, BOM, SHY, FILLER = "\ufe0f", "\ufeff", "\u00ad", "\u3164"
# (doc ID, text, title or ""), in the order look-a ranks them.
UNICODE_DOCS = (
    (
        "kural-1",
        "அகர முதல எழுத்தெல்லாம் ஆதி பகவன் முதற்றே உலகு."
        " (Thirukkural, couplet 1: as every letter begins with A, the world begins with God.)",
        "திருக்குறள் 1",
    ),
    (
        "bidi",
        "Right-to-left words: Hebrew שלום עולם, Arabic مرحبا بالعالم. An override that"
        f" would turn a file name round: \u202egnp.exe\u202c. Marks: LRM[{LRM}] RLM[{RLM}]"
        f" ALM[{ALM}]. Isolates: \u2066LRI\u2069 \u2067RLI\u2069 \u2068FSI\u2069."
        " Embeddings: \u202aLRE\u202c \u202bRLE\u202c.",
        "",
    ),
    (
        "zero-width",
        f"Zero-width characters: en{ZWSP}.wikipedia{ZWSP}.org, non{ZWNJ}joiner, word{WJ}joiner,"
        f" a byte order mark{BOM}inside, a soft{SHY}hyphen, a family 👨{ZWJ}👩{ZWJ}👧,"
        f" a heart ❤{VS16}, a keycap 1{VS16}\u20e3, a thumbs up 👍\U0001f3fd, tag"
        f" characters\U000e0041\U000e0042 and a Hangul filler [{FILLER}].",
        "",
    ),
    (
        "wide",
        "Wide characters: 漢字かな交じり文, ＦＵＬＬＷＩＤＴＨ, 한국어, emoji 😀🎉;"
        " combining café and cafe\u0301; Thai ภาษาไทย; Devanagari हिन्दी;"
        " a trigram ☰ (wide since Unicode 16).",
        "",
    ),
    ("look-d1", "My ID is look-d1, plain.", ""),
    (f"look-d1{VS16}", "My ID is look-d1 and a variation selector, which draws nothing.", ""),
    (f"look-d1{FILLER}", "My ID is look-d1 and a Hangul filler, which draws nothing.", ""),
    ("look-d1\\ufe0f", "My ID is look-d1, a backslash and the letters ufe0f.", ""),
    ("ஆதி", "My ID is Tamil: its vowel sign is a spacing combining mark.", ""),
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


def build_hostile_unicode(passages: Path, out: Path) -> None:
    """The hostile set's companion: `UNICODE_PASSAGES` (from the project's
    MS MARCO subset, unchanged) and `UNICODE_DOCS`, ranked in one order by
    ``look-a.trec`` and in the other by ``look-b.trec``, all judged."""
    texts: dict[str, str] = {}
    with gzip.open(passages, "rt", encoding="utf-8", newline="") as handle:
        for line in handle.read().split("\n"):  # not splitlines: the mojibake holds U+0085
            pid, _, text = line.partition("\t")
            if pid in UNICODE_PASSAGES:
                texts[pid] = text
    rows = [(pid, texts[pid], "") for pid in UNICODE_PASSAGES] + list(UNICODE_DOCS)
    write(out / "queries.tsv", tsv([UNICODE_QUERY], "hostile-unicode queries"))
    lines = []
    for doc, text, title in rows:
        where = "hostile-unicode docs"
        fields = [check_field(doc, where), check_field(text, where)]
        lines.append("\t".join(fields + ([check_field(title, where)] if title else [])) + "\n")
    write(out / "docs.tsv", "".join(lines).encode("utf-8"))
    qid = UNICODE_QUERY[0]
    graded = {pid: 2 for pid in UNICODE_PASSAGES}
    qrels = "".join(f"{qid} 0 {doc} {graded.get(doc, 0)}\n" for doc, _, _ in rows)
    write(out / "qrels.txt", qrels.encode("utf-8"))
    for name, order in (("look-a", rows), ("look-b", rows[::-1])):
        run = [
            f"{qid} Q0 {doc} {rank} {len(order) - rank + 1}.0 {name}\n"
            for rank, (doc, _, _) in enumerate(order, start=1)
        ]
        write(out / f"{name}.trec", "".join(run).encode("utf-8"))


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


def cut_run(lines: list[str], queries: set[str] | None = None) -> list[str]:
    """The lines of ``queries`` (all when None) at rank ``TOP_N`` or better, in
    their original order, plus every line tied with a query's rank ``TOP_N``."""
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
        query_id, _, _, rank, score, _ = line.split()
        if queries is not None and query_id not in queries:
            continue
        if int(rank) <= TOP_N or float(score) >= threshold[query_id]:
            kept.append(line)
    return kept


def top_documents(lines: list[str], depth: int) -> dict[str, list[str]]:
    """Per query, the first ``depth`` documents in trec_eval's order (score
    descending, ties by doc ID in descending byte order)."""
    rows = [line.split() for line in lines]
    rows.sort(key=lambda row: row[2].encode(), reverse=True)
    rows.sort(key=lambda row: float(row[4]), reverse=True)  # stable: ties keep doc order
    tops: dict[str, list[str]] = {}
    for row in rows:
        top = tops.setdefault(row[0], [])
        if len(top) < depth:
            top.append(row[2])
    return tops


def write_passages(passages: Path, wanted: set[str], out: Path, where: str) -> None:
    """``docs.tsv.gz``: the text of every wanted passage, sorted by pid."""
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
        print(
            f"{where}: {len(missing)} retrieved passages have no text: {missing}", file=sys.stderr
        )
    rows = [(pid, texts[pid]) for pid in sorted(texts, key=int)]
    write(out / "docs.tsv.gz", tsv(rows, f"{where} docs"), gzipped=True)


def build_dl19_top20(source: Path, passages: Path, out: Path) -> None:
    """The 43 judged DL19 queries, the full qrels and three runs cut to the top 20."""
    qrels_lines = (source / "qrels.dl19-passage.txt").read_text().splitlines()
    judged = {line.split()[0] for line in qrels_lines if line.strip()}
    queries = [row for row in read_two_columns(source / "queries.dl19.tsv") if row[0] in judged]
    write(out / "queries.tsv", tsv(queries, "dl19 queries"))
    shutil.copyfile(source / "qrels.dl19-passage.txt", out / "qrels.txt")
    wanted: set[str] = set()
    for name, source_name in DL19_RUNS.items():
        lines = (source / "runs" / source_name).read_text().splitlines(keepends=True)
        kept = cut_run(lines)
        wanted.update(line.split()[2] for line in kept)
        write(out / name, "".join(kept).encode())
    write_passages(passages, wanted, out, "dl19")


def build_demo(source: Path, passages: Path, out: Path) -> None:
    """The demo's DL19 slice: `DEMO_QUERIES`, four runs cut to the top 20, the
    judgments of the old runs' depth-10 pool (``qrels.txt``) and the rest of
    these queries' judgments (``hidden.qrels``), each line as in the source."""
    chosen = set(DEMO_QUERIES)
    queries = [row for row in read_two_columns(source / "queries.dl19.tsv") if row[0] in chosen]
    if len(queries) != len(chosen):
        raise SystemExit(f"demo: queries not found: {sorted(chosen - {q for q, _ in queries})}")
    write(out / "queries.tsv", tsv(queries, "demo queries"))
    pooled: set[tuple[str, str]] = set()
    wanted: set[str] = set()
    for name, source_name in DEMO_RUNS.items():
        lines = (source / "runs" / source_name).read_text().splitlines(keepends=True)
        kept = cut_run(lines, chosen)
        wanted.update(line.split()[2] for line in kept)
        write(out / name, "".join(kept).encode())
        if name in POOLED_RUNS:
            for query_id, docs in top_documents(kept, POOL_DEPTH).items():
                pooled.update((query_id, doc) for doc in docs)
    shown, hidden = [], []
    for line in (source / "qrels.dl19-passage.txt").read_text().splitlines(keepends=True):
        query_id, _, doc_id, _ = line.split()
        if query_id in chosen:
            (shown if (query_id, doc_id) in pooled else hidden).append(line)
    write(out / "qrels.txt", "".join(shown).encode())
    write(out / "hidden.qrels", "".join(hidden).encode())
    write_passages(passages, wanted, out, "demo")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=default_source())
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    args = parser.parse_args(argv)
    source: Path = args.source
    out: Path = args.out
    fixtures: Path = args.fixtures
    passages = source / "passages" / "msmarco-passage.subset.tsv.gz"
    if not (source / "dl19-passage").is_dir() or not passages.is_file():
        raise SystemExit(
            f"{source} is not the project's shared data folder (it lacks dl19-passage/ or "
            f"{passages.relative_to(source)}); name it with --source DIR"
        )
    for folder in (
        out / "teaching",
        out / "dl19",
        fixtures / "hostile",
        fixtures / "hostile-unicode",
        fixtures / "noveleval",
    ):
        folder.mkdir(parents=True, exist_ok=True)
    (fixtures / "dl19-top20").mkdir(parents=True, exist_ok=True)
    build_teaching(out / "teaching")
    build_demo(source / "dl19-passage", passages, out / "dl19")
    build_hostile(fixtures / "hostile")
    build_hostile_unicode(passages, fixtures / "hostile-unicode")
    build_noveleval(source / "noveleval", fixtures / "noveleval")
    build_dl19_top20(source / "dl19-passage", passages, fixtures / "dl19-top20")


if __name__ == "__main__":
    main()
