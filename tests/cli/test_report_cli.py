"""``judgepool report``: the HTML file and the figures, on the demo data and on
small made-up runs. The figures' values are held to what ``compare --format
json`` and ``score --per-query`` print for the same inputs, both as the page
tabulates them and as the drawn matplotlib artists hold them; hostile names
show as text; the files are the same bytes each time; bad input is refused
with exit 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from judgepool.cli import figure_draw
from judgepool.cli.verdict_render import pvalue
from judgepool.services.demo import build_demo_workspace
from tests.cli.conftest import ranked, write_qrels, write_run

DEMO = Path(__file__).parents[2] / "sample_data" / "dl19"
DEMO_RUNS = ("bm25.trec", "bm25-rm3.trec", "splade-pp-ed.trec", "repllama.trec")
SECTIONS = ("contract", "scores", "comparison", "per-query-differences", "forest", "judged-share")
TOLERANCE = 1e-12


def demo_args() -> list[str]:
    return [*(str(DEMO / run) for run in DEMO_RUNS), "--qrels", str(DEMO / "qrels.txt"),
            "--unjudged", "zero"]  # fmt: skip


class Cells(HTMLParser):
    """Every ``data-value`` of each figure's table of numbers, by section id."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.values: dict[str, list[float]] = {}
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section" and found.get("id"):
            self.section = found["id"]
            self.ids.append(str(found["id"]))
        value = found.get("data-value")
        if tag == "td" and value is not None and self.section is not None:
            self.values.setdefault(self.section, []).append(float(value))


def cells(page: str) -> Cells:
    parser = Cells()
    parser.feed(page)
    return parser


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, Any]]]:
    """Each (figure data, matplotlib figure) the command draws, in order."""
    seen: list[tuple[Any, Any]] = []
    original = figure_draw.draw

    def keep(data: Any, labels: Any = None) -> Any:
        figure = original(data, labels)
        seen.append((data, figure))
        return figure

    monkeypatch.setattr(figure_draw, "draw", keep)
    yield seen


def report(cli: Callable[..., Result], out: Path, *args: Any) -> str:
    result = cli("report", *args, "-o", out)
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def by_gid(figure: Any, gid: str) -> Any:
    for axes in figure.axes:
        for artist in [*axes.lines, *axes.patches]:
            if artist.get_gid() == gid:
                return artist
    raise AssertionError(f"no artist {gid}")


def test_the_demo_report_plots_what_compare_prints(
    cli: Callable[..., Result], tmp_path: Path, drawn: list[tuple[Any, Any]]
) -> None:
    page = report(cli, tmp_path / "report.html", *demo_args())
    result = cli("compare", *demo_args(), "--baseline", str(DEMO / "bm25.trec"), "--format", "json")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.stdout)
    found = cells(page)
    assert found.ids == list(SECTIONS)
    # no reference to anything outside the file, and no script at all
    assert not re.search(r'(?:src|href)="(?!#|data:)', page)
    assert "<script" not in page
    assert compared["fingerprint"] in page and compared["qrels_digest"] in page

    # the forest: its table and its artists hold compare's numbers
    forest_values = found.values["forest"]
    ((forest_data, forest_figure),) = [(d, f) for d, f in drawn if type(d).__name__ == "Forest"]
    for i, pair in enumerate(compared["pairs"]):
        row = forest_values[i * 5 : i * 5 + 5]
        expected = [pair["mean_diff"], *pair["bootstrap_ci"], *pair["diff_bounds"]]
        assert row == pytest.approx(expected, abs=TOLERANCE)
        mean = by_gid(forest_figure, f"forest-mean-{i}")
        assert mean.get_xdata()[0] == pytest.approx(pair["mean_diff"], abs=TOLERANCE)
        interval = by_gid(forest_figure, f"forest-interval-{i}")
        assert list(interval.get_xdata()) == pytest.approx(pair["bootstrap_ci"], abs=TOLERANCE)
        bounds = by_gid(forest_figure, f"forest-bounds-{i}")
        assert list(bounds.get_xdata()) == pytest.approx(pair["diff_bounds"], abs=TOLERANCE)
        colour = figure_draw.VERDICT_COLOURS[pair["verdict"]]
        assert (
            interval.get_color() == colour
            and f"verdict-{pair['verdict'].replace(' ', '-')}" in page
        )
        assert forest_data.rows[i].verdict == pair["verdict"]

    # per-query differences: bar heights are score's per-query nDCGs, paired
    per_query = {run: _per_query(cli, DEMO / run) for run in DEMO_RUNS}
    ((pqd_data, pqd_figure),) = [
        (d, f) for d, f in drawn if type(d).__name__ == "PerQueryDifferences"
    ]
    population = compared["population"]["queries"]
    for p, pair in enumerate(pqd_data.pairs):
        a, b = per_query[Path(pair.a).name], per_query[Path(pair.b).name]
        heights = [by_gid(pqd_figure, f"pqd-{p}-{i}").get_height() for i in range(population)]
        expected = sorted((a[q] - b[q] for q in a), reverse=True)
        assert heights == pytest.approx(expected, abs=TOLERANCE)
        assert [q.diff for q in pair.queries] == pytest.approx(expected, abs=TOLERANCE)
        # a query the holes could reverse is drawn hatched, the others are not
        for i, query in enumerate(pair.queries):
            bar = by_gid(pqd_figure, f"pqd-{p}-{i}")
            assert bool(bar.get_hatch()) == query.could_flip
            assert query.low is not None and query.high is not None
            # open: the bounds neither exclude 0 nor pin the difference at 0
            settled = query.low > 0 or query.high < 0
            assert query.could_flip == (not settled and (query.low, query.high) != (0, 0))
    assert any(q.could_flip for pair in pqd_data.pairs for q in pair.queries)
    # the page's table under the figure: (diff, low, high) per query, pair by pair
    tabled = found.values["per-query-differences"]
    plotted = [v for pair in pqd_data.pairs for q in pair.queries for v in (q.diff, q.low, q.high)]
    assert tabled == pytest.approx(plotted, abs=TOLERANCE)

    # judged share: the modern runs' holes sit at the top ranks; each run's
    # mean over ranks 1..10 is its mean judged@10 (every list is 20 long)
    ((share_data, share_figure),) = [(d, f) for d, f in drawn if type(d).__name__ == "JudgedShare"]
    for i, run in enumerate(share_data.runs):
        line = by_gid(share_figure, f"share-{i}")
        assert list(line.get_ydata()) == pytest.approx(list(run.shares), abs=TOLERANCE)
        judged = _judged_at_k(cli, DEMO / Path(run.run).name)
        assert sum(s for s in run.shares if s is not None) / 10 == pytest.approx(judged, abs=1e-9)
    assert found.values["judged-share"][:4] == pytest.approx(
        [run.shares[0] for run in share_data.runs], abs=1e-3
    )


def _per_query(cli: Callable[..., Result], run: Path) -> dict[str, float]:
    result = cli("score", run, "--qrels", DEMO / "qrels.txt", "--unjudged", "zero",
                 "--format", "json", "--per-query")  # fmt: skip
    records = json.loads(result.stdout)["per_query"]
    return {r["query_id"]: r["ndcg"] for r in records if r["ndcg"] is not None}


def _judged_at_k(cli: Callable[..., Result], run: Path) -> float:
    result = cli("score", run, "--qrels", DEMO / "qrels.txt", "--unjudged", "zero",
                 "--format", "json")  # fmt: skip
    value: float = json.loads(result.stdout)["summary"]["judged_at_k"]
    return value


def hostile_case(tmp_path: Path) -> tuple[Path, Path, Path]:
    judgments = {"q<1>&x": {"d1": 3, "d2": 0}, "q2": {"d1": 1, "d3": 2}}
    qrels = write_qrels(tmp_path / "qrels", judgments)
    first = write_run(tmp_path / "<b>run&amp;", [*ranked("q<1>&x", ["d1", "u1"]),
                                                 *ranked("q2", ["d3", "d1"])])  # fmt: skip
    second = write_run(tmp_path / "other.trec", [*ranked("q<1>&x", ["u1", "d1"]),
                                                 *ranked("q2", ["d1", "u2"])])  # fmt: skip
    return qrels, first, second


def test_hostile_names_show_as_text(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels, first, second = hostile_case(tmp_path)
    hostile = "</style><script>alert(1)</script>"
    page = report(cli, tmp_path / "r.html", first, second, "--qrels", qrels, "-k", "2",
                  "--unjudged", "zero", "--label", f"{second}={hostile}")  # fmt: skip
    assert "<script" not in page
    # the page's own style ends once; the others are the SVGs' own, inside them
    assert page.count("</style>") == 1 + page.count("<svg")
    assert "&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "q&lt;1&gt;&amp;x" in page  # a query ID
    assert "&lt;b&gt;run&amp;amp;" in page  # a file name, its entity shown as typed
    assert cells(page).ids == list(SECTIONS)


def test_figures_are_the_same_bytes_every_time(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels, first, second = hostile_case(tmp_path)
    args = [first, second, "--qrels", qrels, "-k", "2", "--unjudged", "zero"]
    pages = []
    for name in ("one", "two"):
        pages.append(report(cli, tmp_path / f"{name}.html", *args, "--figures", tmp_path / name))
    assert pages[0] == pages[1]
    stems = ("per-query-differences", "forest", "judged-share")
    expected = sorted(f"{stem}.{kind}" for stem in stems for kind in ("svg", "pdf", "png"))
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == expected
    for name in expected:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    svg = (tmp_path / "one" / "forest.svg").read_text()
    assert "<text" not in svg and "font-family" not in svg  # text drawn as paths
    assert (tmp_path / "one" / "forest.pdf").read_bytes().startswith(b"%PDF")


def test_compare_latex_refers_to_the_figures_report_writes(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, first, second = hostile_case(tmp_path)
    args = [first, second, "--qrels", qrels, "-k", "2", "--unjudged", "zero"]
    report(cli, tmp_path / "r.html", *args, "--figures", tmp_path / "figs")
    plain = cli("compare", *args, "--format", "latex")
    latex = cli("compare", *args, "--format", "latex", "--figures", tmp_path / "figs")
    assert latex.exit_code == 0, latex.output
    assert latex.stdout.startswith(plain.stdout.rstrip("\n"))  # the tables unchanged
    included = re.findall(r"\\includegraphics\[width=\\linewidth\]\{([^}]*)\}", latex.stdout)
    stems = ("per-query-differences", "forest", "judged-share")
    assert included == [str(tmp_path / "figs" / f"{stem}.pdf") for stem in stems]
    assert all(Path(path).exists() for path in included)
    assert latex.stdout.count(r"\begin{figure}") == 3
    # the baseline named in the caption is the report's: the first run
    assert "baseline <b>run\\&amp;," in latex.stdout
    refused = cli("compare", *args, "--figures", tmp_path / "figs")
    assert refused.exit_code == 2 and "--figures applies to --format latex" in refused.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "Missing option '-o'"),
        (["-o", "{tmp}/missing/r.html"], "no such directory"),
        (["-o", "{tmp}/r.html", "--baseline", "nope"], "--baseline 'nope' is not one of the runs"),
        (["-o", "{tmp}/r.html", "--figures", "{tmp}/qrels/figs"], "cannot write"),
        (["-o", "{tmp}/r.html", "--figures", "{tmp}/qrels"], "is not a directory"),
        (["-o", "{tmp}/qrels"], "is one of the report's inputs"),
        (["-o", "{tmp}"], "is a directory"),
    ],
)
def test_bad_input_is_refused_with_exit_2(
    cli: Callable[..., Result], tmp_path: Path, extra: list[str], message: str
) -> None:
    qrels, first, second = hostile_case(tmp_path)
    given = [part.format(tmp=tmp_path) for part in extra]
    result = cli("report", first, second, "--qrels", qrels, "-k", "2", "--unjudged", "zero",
                 *given)  # fmt: skip
    assert result.exit_code == 2, result.output
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert qrels.read_text().startswith("q<1>&x")  # never written over


def test_a_refused_report_leaves_no_figures_folder(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, first, second = hostile_case(tmp_path)
    figures = tmp_path / "new" / "figures"
    # unjudged documents, refused under the default contract (--unjudged reject)
    result = cli("report", first, second, "--qrels", qrels, "-k", "2",
                 "-o", tmp_path / "r.html", "--figures", figures)  # fmt: skip
    assert result.exit_code == 1, result.output  # the audit's refusal
    assert "unjudged" in result.stderr, result.stderr
    assert not (tmp_path / "new").exists()
    assert not (tmp_path / "r.html").exists()


def test_a_workspace_report_adds_agreement_and_progress(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    ws = build_demo_workspace(tmp_path / "demo.sqlite", DEMO.parent)
    for annotator, grade in (("ann", "2"), ("bob", "1")):
        for doc in ("13499", "1381477"):
            judged = cli("judge", ws, "168216", doc, grade, "--annotator", annotator)
            assert judged.exit_code == 0, judged.output
    page = report(cli, tmp_path / "ws.html", "--workspace", ws, "--figures", tmp_path / "f")
    found = cells(page)
    assert found.ids == [*SECTIONS, "agreement", "progress"]
    assert "Cohen&#x27;s kappa" in page or "Cohen's kappa" in page
    assert (tmp_path / "f" / "agreement.svg").exists() and (
        tmp_path / "f" / "progress.pdf"
    ).exists()
    agreement = json.loads(cli("agreement", ws, "--format", "json").stdout)
    (pair,) = [p for p in agreement["pairs"] if {p["a"], p["b"]} == {"ann", "bob"}]
    assert pair["cohen_kappa"] in found.values["agreement"] or pair["cohen_kappa"] is None


def test_only_drawing_loads_matplotlib() -> None:
    """The app and every command, the report's own module included, start
    without matplotlib: only drawing the figures imports it."""
    program = (
        "import sys, importlib\n"
        "from judgepool.cli import COMMAND_MODULES\n"
        "for module in sorted(set(COMMAND_MODULES.values())):\n"
        "    importlib.import_module(f'judgepool.cli.{module}')\n"
        "import judgepool.tui.app\n"
        "print('matplotlib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


class PairRows(HTMLParser):
    """Each table row of a section, by section id: each cell's exact value
    (``data-value``) where it has one, else its text."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.rows: dict[str, list[list[str]]] = {}
        self.cell: list[str] | None = None
        self.value: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section" and found.get("id"):
            self.section = found["id"]
        elif tag == "tr" and self.section is not None:
            self.rows.setdefault(self.section, []).append([])
        elif tag == "td":
            self.cell = []
            self.value = found.get("data-value")

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None and self.section is not None:
            self.rows[self.section][-1].append(self.value or "".join(self.cell))
            self.cell = None


def many_runs(tmp_path: Path, count: int) -> list[Any]:
    """``count`` runs over five queries, each with a hole or two of its own."""
    judgments = {f"q{q}": {f"d{i}": (i + q) % 4 for i in range(8)} for q in range(5)}
    qrels = write_qrels(tmp_path / "qrels", judgments)
    runs = []
    for r in range(count):
        rows = []
        for q in range(5):
            docs = [f"d{(r * 3 + q + i) % 8}" for i in range(6)]
            docs.insert((r + q) % 5, f"u{r % 7}")  # a hole, shared by some runs
            rows += ranked(f"q{q}", docs)
        runs.append(write_run(tmp_path / f"run{r:02d}.trec", rows))
    return [*runs, "--qrels", qrels, "--unjudged", "zero", "-k", "5"]


def test_many_runs_keep_the_baseline_and_add_every_pair(
    cli: Callable[..., Result], tmp_path: Path, drawn: list[tuple[Any, Any]]
) -> None:
    # 22 runs: 21 pairs with the baseline (the figures' layouts for many), 231 in all
    args = many_runs(tmp_path, 22)
    page = report(cli, tmp_path / "report.html", *args, "--all-pairs")
    found = cells(page)
    assert found.ids == ["contract", "scores", "comparison", "all-pairs",
                         "per-query-differences", "forest", "judged-share"]  # fmt: skip
    rows = PairRows()
    rows.feed(page)

    def compared(*extra: Any) -> list[dict[str, Any]]:
        result = cli("compare", *args, *extra, "--format", "json")
        assert result.exit_code == 0, result.output
        pairs: list[dict[str, Any]] = json.loads(result.stdout)["pairs"]
        return pairs

    def shown(pairs: list[dict[str, Any]]) -> list[list[Any]]:
        return [[Path(p["a"]).stem, Path(p["b"]).stem, f"{p['wins']}/{p['ties']}/{p['losses']}",
                 p["verdict"]] for p in pairs]  # fmt: skip

    def tabled(section: str) -> list[list[Any]]:
        return [[row[0], row[1], row[3], row[10]] for row in rows.rows[section] if row]

    def diffs(section: str) -> list[float]:
        return [float(row[2]) for row in rows.rows[section] if row]

    # the comparison with the baseline is the one without --all-pairs
    with_baseline = compared("--baseline", str(args[0]))
    assert len(with_baseline) == 21
    assert tabled("comparison") == shown(with_baseline)
    assert diffs("comparison") == [p["mean_diff"] for p in with_baseline]
    # and every pair is compare's every pair, its p-values adjusted over all 231
    every = compared()
    assert len(every) == 231
    assert tabled("all-pairs") == shown(every)
    assert diffs("all-pairs") == [p["mean_diff"] for p in every]
    adjusted = [row[5] for row in rows.rows["all-pairs"] if row]
    assert adjusted == [
        f"{pvalue(p['randomization_p'])} ({pvalue(p['randomization_p_adjusted'])})" for p in every
    ]
    assert "231 pairs" in page

    # the figures stay with the baseline, laid out for many runs
    figures = {type(data).__name__: figure for data, figure in drawn}
    panels = [axes for axes in figures["PerQueryDifferences"].axes if axes.axison]
    assert len(panels) == 21  # small multiples, four to a row, named by run
    assert [axes.get_title(loc="left") for axes in panels] == [f"run{r:02d}" for r in range(1, 22)]
    assert figures["PerQueryDifferences"].get_suptitle() == "each run − run00"
    forest_axes = figures["Forest"].axes[0]
    assert forest_axes.get_yticklabels()[0].get_text() == "run01 − run00"
    assert forest_axes.xaxis.get_tick_params(which="major")["labeltop"]
    legend = figures["JudgedShare"].axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["run00 (baseline)", "the other 21 runs"]
