"""``judgepool report``'s one HTML file: the contract and digests, the score
table, the comparison in numbers and words, and the figures with their numbers.

The page is self-contained: its style is inline, its figures inline SVG, it
has no script, and its Content-Security-Policy forbids loading anything, so
opening it offline shows all of it and opening it online asks no host for
anything. Every text from data (run names and labels, query IDs, annotators,
messages) passes through `judgepool.display.literal` and is then HTML-escaped:
a run named ``</style>`` shows as those characters. Each section has a stable
``id`` (the figure's stem for a figure's section). Numbers a figure plots are
also in a table under it, each cell's exact value in its ``data-value``.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from judgepool import __version__
from judgepool.cli.figure_data import (
    AgreementMatrix,
    FigureData,
    Forest,
    JudgedShare,
    PerQueryDifferences,
    ProgressBars,
)
from judgepool.cli.figure_table import CaptionFacts, FigureSpec
from judgepool.cli.render import fmt
from judgepool.cli.verdict_render import draws_lines, interval, population_lines, pvalue, share
from judgepool.core.comparing.verdict_words import sentence_of
from judgepool.core.comparing.verdicts import ComparisonReport, PairStats
from judgepool.core.terms.measures import NDCG
from judgepool.display import literal, shown_id
from judgepool.services.verdicts import ComparedRuns

if TYPE_CHECKING:
    # types only: reading a workspace's agreement loads SQLite, which a report
    # of qrels files never needs
    from judgepool.services.agreement import AgreementReport
    from judgepool.services.assignments import Progress

# nothing may be fetched: inline style and SVG (data: for what SVG may embed)
POLICY: Final = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; }
h3, h4 { font-size: 1em; }
section { margin-bottom: 2.5em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #e4e4e4; text-align: right; }
th { background: #f4f4f4; } td.text, th.text { text-align: left; }
code, .digest { font-family: ui-monospace, monospace; font-size: 0.85em;
                overflow-wrap: anywhere; }
figure { margin: 1em 0; } figure svg { width: 100%; max-width: 56em; height: auto; }
.wide { overflow-x: auto; }
figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
details { margin-top: 0.5em; } summary { cursor: pointer; color: #555; }
.verdict-settled { color: #1b7837; } .verdict-probable { color: #2166ac; }
.verdict-could-flip { color: #b35806; } .verdict-tied { color: #777; }
.note { color: #555; font-size: 0.9em; }
"""
# the order verdicts are counted in, under All pairs
VERDICTS: Final = ("settled", "probable", "could flip", "tied")


def text(value: str) -> str:
    """Text from data, shown literally and safe in HTML (element or attribute)."""
    return html.escape(literal(value), quote=True)


def query_text(query_id: str) -> str:
    """A query ID, as `judgepool.display.shown_id` shows it, safe in HTML."""
    return html.escape(shown_id(query_id), quote=True)


@dataclass(frozen=True)
class DrawnFigure:
    """A figure as the page shows it: its entry in the table of figures, the
    values it plots, and the inline SVG drawn from them."""

    spec: FigureSpec
    data: FigureData
    svg: str


@dataclass(frozen=True)
class WorkspaceParts:
    """What a workspace adds: agreement (or why there is none) and progress."""

    agreement: AgreementReport | None
    agreement_reason: str | None
    progress: Sequence[Progress]


@dataclass(frozen=True)
class ReportPage:
    compared: ComparedRuns
    qrels_label: str
    labels: Mapping[str, str]
    facts: CaptionFacts
    figures: Sequence[DrawnFigure]
    workspace: WorkspaceParts | None = None


def _number(value: float | None, places: int = 4) -> str:
    """A table cell with a number shown to ``places`` and kept exactly."""
    if value is None:
        return "<td>-</td>"
    return f'<td data-value="{value!r}">{fmt(value, places)}</td>'


def _cell(value: str, *, raw: bool = False) -> str:
    return f'<td class="text">{value if raw else text(value)}</td>'


def _head(*names: str, text_columns: int = 2) -> str:
    """A header row: the first ``text_columns`` columns hold text, the rest numbers."""
    cells = "".join(
        f'<th class="text">{text(n)}</th>' if i < text_columns else f"<th>{text(n)}</th>"
        for i, n in enumerate(names)
    )
    return f"<thead><tr>{cells}</tr></thead>"


def _lines(lines: Sequence[str]) -> str:
    items = "".join(f"<li>{text(line.strip())}</li>" for line in lines if line.strip())
    return f'<ul class="note">{items}</ul>' if items else ""


def _label(page: ReportPage, run: str) -> str:
    return page.labels.get(run, run)


def _contract(page: ReportPage) -> str:
    compared = page.compared
    report = compared.report
    parameters = "".join(
        f'<tr><td class="text">{text(name)}</td><td class="text"><code>{text(value)}</code>'
        "</td></tr>"
        for name, value in report.contract.shown()
    )
    runs = "".join(
        f"<tr>{_cell(_label(page, run.run))}{_cell(run.run)}"
        f'<td class="text digest">{text(digest)}</td></tr>'
        for run, digest in zip(report.runs, compared.run_digests, strict=True)
    )
    provenance = "".join(
        f'<tr><th class="text">{name}</th><td class="text{kind}">{text(value)}</td></tr>'
        for name, kind, value in (
            ("judgments", "", page.qrels_label),
            ("rests on", "", compared.provenance.line()),
            ("qrels digest", " digest", compared.qrels_digest),
            ("fingerprint", " digest", compared.fingerprint),
        )
    )
    return f"""<section id="contract">
<h2>Contract and digests</h2>
<table><tbody>{provenance}</tbody></table>
<h3>Contract</h3>
<table>{_head("parameter", "value")}<tbody>{parameters}</tbody></table>
<h3>Runs</h3>
<table>{_head("label", "run", "run digest", text_columns=3)}<tbody>{runs}</tbody></table>
{_lines(population_lines(report))}
{_lines(draws_lines(report))}
</section>"""


def _scores(page: ReportPage) -> str:
    compared = page.compared
    report = compared.report
    k = report.contract.k
    rows = []
    for index, run in enumerate(report.runs):
        summary = compared.summaries[index] if index < len(compared.summaries) else None
        own = (
            _number(summary.ndcg) + _number(summary.ndcg_pooled) + _number(summary.judged_at_k)
            + f"<td>{summary.scored:,}</td><td>{summary.zero_idcg:,}</td>"
            if summary is not None
            else "<td>-</td>" * 5
        )  # fmt: skip
        rows.append(
            f"<tr>{_cell(_label(page, run.run))}{own}{_number(run.ndcg)}"
            f"<td>{text(interval(run.ci))}</td><td>{text(interval(run.bounds))}</td>"
            f"{_number(run.expected_ndcg)}<td>{run.unjudged_at_k:,}</td></tr>"
        )
    nd = NDCG.label(k)
    head = _head("run", f"{nd} (all scored)", "pooled", f"judged@{k}", "scored",
                 "zero IDCG", f"{nd} (compared)", "95% CI", "bounds", "expected",
                 f"unjudged@{k}", text_columns=1)  # fmt: skip
    return f"""<section id="scores">
<h2>Scores</h2>
<p class="note">Each run as <code>judgepool score</code> reports it over its scored queries,
then over the {len(report.population)} queries compared (scored for every run): the mean, its
95% interval (Student's t), its bounds once every unjudged document of the compared runs' top
{k} is judged, and the expected mean over the draws of the holes' grades. Runs by label (the
files and digests: under Contract and digests).</p>
<div class="wide"><table>{head}<tbody>{"".join(rows)}</tbody></table></div>
</section>"""


def _verdict_class(verdict: str | None) -> str:
    return "" if verdict is None else f' class="text verdict-{verdict.replace(" ", "-")}"'


def _pair_row(page: ReportPage, p: PairStats) -> str:
    return (
        f"<tr>{_cell(_label(page, p.a))}{_cell(_label(page, p.b))}{_number(p.mean_diff)}"
        f"<td>{p.wins}/{p.ties}/{p.losses}</td>"
        f"<td>{pvalue(p.t_p)} ({pvalue(p.t_p_adjusted)})</td>"
        f"<td>{pvalue(p.randomization_p)} ({pvalue(p.randomization_p_adjusted)})</td>"
        f"<td>{interval(p.bootstrap_ci)}</td>{_number(p.effect_size, 3)}"
        f"<td>{interval(p.diff_bounds)}</td><td>{share(p.p_a_ahead)}</td>"
        f"<td{_verdict_class(p.verdict)}>{text(p.verdict or '-')}</td><td>{p.holes:,}</td></tr>"
    )


_PAIR_HEAD: Final = _head("A", "B", "diff", "W/T/L", "t p (adj)", "rand p (adj)",
                          "bootstrap 95% CI", "effect", "diff bounds", "P(A ahead)", "verdict",
                          "holes")  # fmt: skip


def _comparison(page: ReportPage) -> str:
    report = page.compared.report
    rows = []
    words = []
    for p in report.pairs:
        a, b = _label(page, p.a), _label(page, p.b)
        rows.append(_pair_row(page, p))
        sentence = sentence_of(
            p, literal(a), literal(b), models=page.compared.models,
            queries=len(report.population), confidence=report.confidence,
            pairs=len(report.pairs),
        ).full  # fmt: skip
        words.append(f"<li>{html.escape(sentence, quote=True)}</li>")
    head = _PAIR_HEAD
    return f"""<section id="comparison">
<h2>Comparison</h2>
<div class="wide"><table>{head}<tbody>{"".join(rows)}</tbody></table></div>
<h3>In words</h3>
<ul>{"".join(words)}</ul>
<p class="note">diff: the mean of nDCG(A) − nDCG(B) over the queries compared. p-values:
two-sided paired t-test and randomisation (sign-flip) test, {report.permutations:,}
permutations, adjusted by {text(report.correction)} for the {len(report.pairs)} pair(s);
bootstrap: {report.bootstrap:,} resamples, seed {report.seed}. diff bounds: the lowest and
highest the mean difference could be once every unjudged document of the compared runs' top k
is judged. Verdict: settled (the sign cannot change), tied, probable (P(A ahead) at least
{report.confidence:g} or at most {1 - report.confidence:g}), could flip. Significant when the
adjusted randomisation p is below 0.05 and the bootstrap interval lies on the difference's
side of 0.</p>
</section>"""


def _all_pairs(page: ReportPage, every: ComparisonReport) -> str:
    """Every pair of runs (``--all-pairs``): the comparison's table, one row a
    pair, without the sentences (with sixty runs, 1,953 of them)."""
    rows = "".join(_pair_row(page, p) for p in every.pairs)
    counts = Counter(p.verdict for p in every.pairs if p.verdict is not None)
    verdicts = ", ".join(f"{counts[v]:,} {v}" for v in VERDICTS if counts[v])
    return f"""<section id="all-pairs">
<h2>All pairs</h2>
<p class="note">Every pair of the {len(every.runs)} runs, A before B in the order given
({len(every.pairs):,} pairs{f": {text(verdicts)}" if verdicts else ""}), computed as the
comparison with the baseline is, but its p-values adjusted by {text(every.correction)} over all
{len(every.pairs):,} pairs (so they differ from the baseline's, adjusted over its own).</p>
<div class="wide"><table>{_PAIR_HEAD}<tbody>{rows}</tbody></table></div>
</section>"""


def _numbers(data: FigureData, page: ReportPage) -> str:
    """The table of what the figure plots."""
    match data:
        case PerQueryDifferences():
            parts = []
            for pair in data.pairs:
                rows = "".join(
                    f'<tr><td class="text">{query_text(q.query_id)}</td>'
                    f"{_number(q.diff)}{_number(q.low)}{_number(q.high)}"
                    f'<td class="text">{"could flip" if q.could_flip else ""}</td></tr>'
                    for q in pair.queries
                )
                title = f"{_label(page, pair.a)} − {_label(page, pair.b)}"
                parts.append(
                    f'<h4>{text(title)}</h4><table class="figure-data" data-a="{text(pair.a)}" '
                    f'data-b="{text(pair.b)}">{_head("query", "diff", "low", "high", "")}'
                    f"<tbody>{rows}</tbody></table>"
                )
            return "".join(parts)
        case Forest():
            rows = "".join(
                f"<tr>{_cell(_label(page, r.a))}{_cell(_label(page, r.b))}{_number(r.mean_diff)}"
                + "".join(_number(v) for v in (r.interval or (None, None)))
                + "".join(_number(v) for v in (r.bounds or (None, None)))
                + f"<td{_verdict_class(r.verdict)}>{text(r.verdict or '-')}</td></tr>"
                for r in data.rows
            )
            head = _head("A", "B", "diff", "interval low", "interval high", "bounds low",
                         "bounds high", "verdict")  # fmt: skip
            return f'<table class="figure-data">{head}<tbody>{rows}</tbody></table>'
        case JudgedShare():
            head = _head("rank", *[_label(page, run.run) for run in data.runs])
            rows = "".join(
                f"<tr><td>{rank}</td>"
                + "".join(_number(run.shares[rank - 1], 3) for run in data.runs)
                + "</tr>"
                for rank in range(1, data.k + 1)
            )
            return f'<table class="figure-data">{head}<tbody>{rows}</tbody></table>'
        case AgreementMatrix():
            if data.reason is not None:
                return f'<p class="note">{text(data.reason)}</p>'
            head = _head("", *data.annotators)
            rows = "".join(
                f"<tr>{_cell(name)}" + "".join(_number(v, 3) for v in row) + "</tr>"
                for name, row in zip(data.annotators, data.kappa, strict=True)
            )
            return f'<table class="figure-data">{head}<tbody>{rows}</tbody></table>'
        case ProgressBars():
            rows = "".join(
                f"<tr>{_cell(r.annotator)}<td>{r.graded:,}</td><td>{r.unsure:,}</td>"
                f"<td>{r.remaining:,}</td></tr>"
                for r in data.rows
            )
            head = _head("annotator", "graded", "unsure", "remaining")
            return f'<table class="figure-data">{head}<tbody>{rows}</tbody></table>'


def _agreement_tables(parts: WorkspaceParts) -> str:
    found = parts.agreement
    if found is None:
        return f'<p class="note">{text(parts.agreement_reason or "no agreement")}</p>'
    rows = "".join(
        f"<tr>{_cell(p.a)}{_cell(p.b)}<td>{p.items:,}</td>"
        + "".join(_number(m.value, 3) for m in (p.raw_agreement, p.cohen_kappa,
                                                 p.kappa_linear, p.kappa_quadratic))
        + "</tr>"
        for p in found.overall.pairs
    )  # fmt: skip
    overall = found.overall.overall
    head = _head("A", "B", "items", "raw agreement", "Cohen's kappa", "linear", "quadratic")
    return (
        f"<table>{head}<tbody>{rows}</tbody></table>"
        f'<p class="note">All annotators ({len(overall.annotators)}): Fleiss\' kappa '
        f"{text(overall.fleiss_kappa.text())} over {overall.fleiss_items:,} items graded by "
        f"every one; Krippendorff's alpha {text(overall.alpha_ordinal.text())} (ordinal), "
        f"{text(overall.alpha_interval.text())} (interval) over {overall.items:,} items graded "
        "by two or more.</p>"
    )


def _progress_table(parts: WorkspaceParts) -> str:
    if not parts.progress:
        return '<p class="note">no annotators yet</p>'
    rows = "".join(
        f"<tr>{_cell(r.annotator)}<td>{r.assigned:,}</td><td>{r.graded:,}</td>"
        f"<td>{r.unsure:,}</td><td>{r.remaining:,}</td>"
        f"<td>{'-' if r.per_hour is None else f'{r.per_hour:.1f}'}</td></tr>"
        for r in parts.progress
    )
    head = _head("annotator", "assigned", "graded", "unsure", "remaining", "per hour")
    return f"<table>{head}<tbody>{rows}</tbody></table>"


def _figure(page: ReportPage, drawn: DrawnFigure) -> str:
    spec = drawn.spec
    extra = ""
    if page.workspace is not None and spec.stem == "agreement":
        extra = _agreement_tables(page.workspace)
    elif page.workspace is not None and spec.stem == "progress":
        extra = _progress_table(page.workspace)
    return f"""<section id="{spec.stem}">
<h2>{text(spec.title)}</h2>
{extra}
<figure id="figure-{spec.stem}">
{drawn.svg}
<figcaption>{text(spec.caption(page.facts))}</figcaption>
</figure>
<details><summary>The numbers plotted</summary>
{_numbers(drawn.data, page)}
</details>
</section>"""


def render_report(page: ReportPage) -> str:
    """The whole page."""
    report = page.compared.report
    names = ", ".join(_label(page, run.run) for run in report.runs)
    sections = [_contract(page), _scores(page), _comparison(page)]
    if page.compared.every_pair is not None:
        sections.append(_all_pairs(page, page.compared.every_pair))
    sections += [_figure(page, drawn) for drawn in page.figures]
    k = report.contract.k
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="judgepool {text(__version__)}">
<title>{text(f"judgepool report: nDCG@{k} of {names}")}</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{text(f"nDCG@{k}: {names}")}</h1>
<p class="note">Written by judgepool {text(__version__)}. Baseline: {text(page.facts.baseline)}.
Every figure is also in the table under it.</p>
</header>
<main>
{"".join(sections)}
</main>
</body>
</html>
"""
