"""Renderings of a comparison of runs (``judgepool compare``) for people and papers:
an aligned table with a legend, a Markdown table, and a LaTeX table in the
booktabs style. Run names and query IDs pass through `literal` first, and
LaTeX's special characters are escaped on top of that.

The LaTeX tables name the runs by their labels (`judgepool.cli.run_labels`)
and give the digests in their captions shortened to `SHORT_DIGEST` hex
digits, which identify them in practice; the full digests, and which file and
run digest each label stands for, are LaTeX comments above the tables: in the
source, out of the typeset page."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Final

from judgepool.cli.figure_table import caption_facts, figures_for
from judgepool.cli.render import contract_lines, fmt, table
from judgepool.core.comparing.verdict_words import ALPHA, sentence_of
from judgepool.core.comparing.verdicts import ComparisonReport, PairStats
from judgepool.core.holes.priors import Prior
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.measures import NDCG, UNJUDGED_AT_K
from judgepool.display import literal
from judgepool.services.verdicts import ComparedRuns

# left-out queries shown by ID per reason; the rest are counted
LEFT_OUT_SHOWN: Final = 10
# hex digits of a digest in a LaTeX caption (the full digests are in comments)
SHORT_DIGEST: Final = 12


def interval(values: tuple[float, float] | None, places: int = 4) -> str:
    """``[lo, hi]``, or ``-`` when not defined."""
    return "-" if values is None else f"[{values[0]:.{places}f}, {values[1]:.{places}f}]"


def pvalue(value: float | None) -> str:
    """A p-value: 4 decimals, or scientific notation when smaller than 0.0001."""
    if value is None:
        return "-"
    return f"{value:.1e}" if 0 < value < 1e-4 else f"{value:.4f}"


def population_lines(report: ComparisonReport) -> list[str]:
    """How many queries are compared, and which were left out and why (by
    reason, the IDs condensed when many)."""
    lines = [f"population {len(report.population)} queries, scored for every run (paired)"]
    if report.left_out:
        by_reason: dict[str, list[str]] = defaultdict(list)
        for query_id, reason in sorted(report.left_out.items()):
            by_reason[reason].append(query_id)
        lines.append(f"left out   {len(report.left_out)} queries:")
        for reason, queries in sorted(by_reason.items()):
            shown = ", ".join(literal(q) for q in queries[:LEFT_OUT_SHOWN])
            more = (
                f" … and {len(queries) - LEFT_OUT_SHOWN} more"
                if len(queries) > LEFT_OUT_SHOWN
                else ""
            )
            lines.append(f"  {literal(reason)} ({len(queries)}): {shown}{more}")
    if report.bounds_note:
        lines.append(f"bounds     {report.bounds_note}")
    return lines


def share(value: float | None) -> str:
    """A share of draws (P(A ahead)) in a table: 3 decimals, or ``-``."""
    return "-" if value is None else f"{value:.3f}"


def draws_lines(report: ComparisonReport) -> list[str]:
    """The draws behind the probable verdicts: how many, the prior with its
    counts (and a model's agreement with the judgments), what they assume."""
    prior = report.prior
    if prior is None:
        return [f"draws      none: {report.draws_note}"] if report.draws_note else []
    lines = [
        f"draws      {report.draws:,}, seed {report.seed}; probable when one run is ahead in at "
        f"least {report.confidence:g} of them",
        f"           {report.draws_note}" if report.draws_note else "",
    ]
    lines += prior_lines(prior)
    return [line for line in lines if line]


def prior_lines(prior: Prior) -> list[str]:
    """The prior in use: the runs prior's fit and its check, or one line per
    condition with its counts by grade (the rank prior's, a model's)."""
    grades = prior.rank.grades
    lines: list[str] = []
    other = "rank" if prior.runs is None else "runs"
    if prior.model is not None:
        model = prior.model
        kappa = "-" if model.kappa_linear is None else f"{model.kappa_linear:.3f}"
        lines += [
            f"prior      {literal(prior.kind)}: grade:count of the judgments on the "
            f"{model.items:,} items the model graded too, by its grade (linear kappa {kappa});",
            f"           {prior.model_holes:,} holes carry its grade, the others take the "
            f"{other} prior",
        ]
        lines += _count_lines("model said", model.counts, grades)
    if prior.runs is not None:
        fit = prior.runs.fit
        lines += [
            f"{'prior' if prior.model is None else '':11}runs: an ordinal model of a hole's grade "
            f"fitted on the {fit.documents:,} judged documents of the runs' top k (which runs "
            "retrieved it, at which ranks;",
            f"           the query's own effect, sd {fit.sigma:.2f}), its parameters drawn too",
        ]
        if prior.check is not None:
            lines.append(f"check      {prior.check.line()}")
        return lines
    if prior.model is None:
        lines.append(
            f"prior      rank: grade:count of the {prior.rank.items:,} judged documents in the "
            "runs' top k, by best rank"
        )
    lines += _count_lines("rank", prior.rank.counts, grades)
    return lines


def _count_lines(
    what: str, counts: Mapping[int, Mapping[int, int]], grades: Sequence[int]
) -> list[str]:
    """One line per condition: how many documents got each grade (grade:count)."""
    width = max((len(str(condition)) for condition in counts), default=1)
    return [
        f"           {what} {str(condition).rjust(width)}   "
        + "  ".join(f"{grade}:{row.get(grade, 0)}" for grade in grades)
        for condition, row in sorted(counts.items())
    ]


def run_keys(report: ComparisonReport) -> dict[str, str]:
    """A short key per run (a, b, …, then r27, r28, …) for the pairs' columns."""
    return {
        run.run: chr(ord("a") + i) if i < 26 else f"r{i + 1}" for i, run in enumerate(report.runs)
    }


def _randomization_note(report: ComparisonReport) -> str:
    exact = any(pair.randomization_exact for pair in report.pairs)
    if exact:
        return "every sign assignment enumerated (exact)"
    return f"{report.permutations} random sign assignments, seed {report.seed}"


def render_compare_table(
    compared: ComparedRuns, qrels_label: str, model_line: str | None = None
) -> str:
    """The comparison for people: provenance, population, runs, pairs, legend.
    ``model_line``: a model prior's labels against the people's, in one line
    (`judgepool.core.team.confusion.Confusion.line`), shown under the prior."""
    report = compared.report
    k = report.contract.k
    out = [
        f"judgments  {literal(qrels_label)}  (qrels digest {compared.qrels_digest[:12]})",
        f"rests on   {literal(compared.provenance.line())}",
        *contract_lines(report.contract),
        f"fingerprint {compared.fingerprint[:16]}",
        *population_lines(report),
        *draws_lines(report),
        *([f"trust      {literal(model_line)}"] if model_line else []),
        "",
    ]
    keys = run_keys(report)
    run_rows = [
        [keys[run.run], literal(run.run), fmt(run.ndcg), interval(run.ci), interval(run.bounds),
         fmt(run.expected_ndcg), interval(run.expected_interval), str(run.unjudged_at_k)]
        for run in report.runs
    ]  # fmt: skip
    run_header = ["", "run", NDCG.label(k), "95% CI", "bounds", "expected", "draws 95%",
                  UNJUDGED_AT_K.label(k)]  # fmt: skip
    out.append(table(run_header, run_rows, 2))
    out.append("")
    pair_rows = [
        [keys[p.a], keys[p.b], fmt(p.mean_diff), f"{p.wins}/{p.ties}/{p.losses}",
         pvalue(p.t_p), pvalue(p.t_p_adjusted), pvalue(p.randomization_p),
         pvalue(p.randomization_p_adjusted), interval(p.bootstrap_ci), fmt(p.effect_size, 3),
         interval(p.diff_bounds), share(p.p_a_ahead), p.verdict or "-", str(p.holes)]
        for p in report.pairs
    ]  # fmt: skip
    header = ["A", "B", "diff", "W/T/L", "t p", "t p adj", "rand p", "rand p adj",
              "bootstrap 95% CI", "effect", "diff bounds", "P(A ahead)", "verdict",
              "holes"]  # fmt: skip
    out.append(table(header, pair_rows, numeric_from=2))
    out.append("")
    out.append("in words")
    for p in report.pairs:
        words = sentence_of(
            p, literal(p.a), literal(p.b), models=compared.models,
            queries=len(report.population), confidence=report.confidence,
            pairs=len(report.pairs),
        ).full  # fmt: skip
        out.append(f"{keys[p.a]}  {keys[p.b]}  {words}")
    out.append("")
    out.extend(_legend(report))
    return "\n".join(out)


def _legend(report: ComparisonReport) -> list[str]:
    k = report.contract.k
    correction = {
        "holm": "Holm's step-down correction (family-wise error)",
        "bh": "Benjamini-Hochberg (false discovery rate)",
        "none": "no correction (adjusted = raw)",
    }[report.correction]
    return [
        "What the columns mean (A and B: the runs' keys in the first column above):",
        f"  nDCG@{k}       the mean nDCG@{k} of the run over the queries of the population.",
        "  95% CI        the 95% confidence interval of that mean (Student's t).",
        "  bounds        the lowest and highest that mean could be once every unjudged document",
        "                of the compared runs' top k is judged, whatever grades they get.",
        "  expected      the run's mean over the draws of the holes' grades (each hole drawn from",
        "                its prior, independently of the others; the drawn documents join the",
        "                ideal); draws 95%: the 2.5 and 97.5 percentiles of that mean.",
        f"  unjudged@{k}   unjudged documents in the run's top {k}, summed over the queries.",
        "  diff          the mean of nDCG(A) - nDCG(B) per query: positive means A scores higher.",
        "  W/T/L         the queries where A wins, ties with, loses to B.",
        "  t p           two-sided paired t-test p-value (as scipy's ttest_rel).",
        "  rand p        two-sided paired randomisation (sign-flip) test:",
        f"                {_randomization_note(report)}.",
        f"  ... adj       that p-value adjusted for the {len(report.pairs)} pair(s) compared,",
        f"                by {correction}.",
        "  bootstrap     the 95% interval of the mean difference from "
        f"{report.bootstrap} resamples, seed {report.seed}.",
        "  effect        effect size: the mean difference divided by the standard deviation of the",
        "                differences (Cohen's d_z).",
        "  diff bounds   the lowest and highest the mean difference could be once the unjudged",
        "                documents of every compared run's top k are judged (one grade each; a",
        "                third run's, judged, changes the ideal and so weighs the queries anew).",
        "  P(A ahead)    the share of the draws in which A's mean is above B's (ties count half).",
        "  verdict       settled: the sign cannot change whatever those grades are; tied: 0",
        "                whatever they are; probable: the bounds leave it open, but P(A ahead) is",
        f"                at least {report.confidence:g} (or at most {1 - report.confidence:g}); "
        "could flip: none of these.",
        "  holes         the unjudged documents in the two runs' top k, summed over the queries:",
        "                what judging can still change (`judgepool holes` lists them).",
        "  in words      each pair in one sentence: significant when rand p adj is below 0.05 and",
        "                the bootstrap interval lies on the difference's side of 0 (borderline",
        "                when only the p-value says so); then what its holes can still do. It",
        "                opens with the answer (is one better?) and ends with the next step:",
        "                judge the pair's holes (when they could still decide it), add queries",
        "                (when the noise does: how many for 80% power at the effect seen), or",
        "                none (decided, or no winner).",
    ]  # fmt: skip


def render_compare_markdown(compared: ComparedRuns) -> str:
    """Two Markdown tables (runs, pairs) with the provenance under them."""
    report = compared.report
    k = report.contract.k

    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    out = [
        row(["run", NDCG.label(k), "95% CI", "bounds", "expected (draws 95%)",
             UNJUDGED_AT_K.label(k)]),
        row(["---", "---:", "---:", "---:", "---:", "---:"]),
    ]  # fmt: skip
    for run in report.runs:
        expected = fmt(run.expected_ndcg)
        if run.expected_interval is not None:
            expected += " " + interval(run.expected_interval)
        out.append(row([literal(run.run), fmt(run.ndcg), interval(run.ci), interval(run.bounds),
                        expected, str(run.unjudged_at_k)]))  # fmt: skip
    out.append("")
    out.append(row(["A", "B", "diff", "W/T/L", "t p (adj)", "rand p (adj)", "bootstrap 95% CI",
                    "effect", "diff bounds", "P(A ahead)", "verdict", "in words"]))  # fmt: skip
    out.append(row(["---", "---", *["---:"] * 8, "---", "---"]))
    for p in report.pairs:
        words = sentence_of(
            p, literal(p.a), literal(p.b), models=compared.models,
            queries=len(report.population), confidence=report.confidence,
            pairs=len(report.pairs),
        ).full  # fmt: skip
        out.append(row([
            literal(p.a), literal(p.b), fmt(p.mean_diff), f"{p.wins}/{p.ties}/{p.losses}",
            f"{pvalue(p.t_p)} ({pvalue(p.t_p_adjusted)})",
            f"{pvalue(p.randomization_p)} ({pvalue(p.randomization_p_adjusted)})",
            interval(p.bootstrap_ci), fmt(p.effect_size, 3), interval(p.diff_bounds),
            share(p.p_a_ahead), p.verdict or "-", words,
        ]))  # fmt: skip
    out.append("")
    out.append(
        f"{len(report.population)} queries ({len(report.left_out)} left out); p-values adjusted "
        f"by {report.correction}; {report.permutations} permutations, {report.bootstrap} "
        f"bootstrap resamples, seed {report.seed}; contract fingerprint "
        f"`{compared.fingerprint}`, qrels digest `{compared.qrels_digest}`; the judgments: "
        f"{literal(compared.provenance.line())}. In words: "
        f"significant when rand p adj < {ALPHA} and the bootstrap interval lies on the "
        "difference's side of 0." + _markdown_draws(report)
    )
    return "\n".join(out)


def _markdown_draws(report: ComparisonReport) -> str:
    if report.prior is None:
        return f" No draws: {report.draws_note}." if report.draws_note else ""
    return (
        f" Expected and P(A ahead): {report.draws:,} draws of the holes' grades under the "
        f"{report.prior.kind} prior, seed {report.seed} ({report.draws_note}); probable when "
        f"P(A ahead) is at least {report.confidence:g} or at most {1 - report.confidence:g}."
    )


_LATEX_SPECIALS: Final = {
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
}


def latex_escape(text: str) -> str:
    """``text`` shown literally, with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIALS.get(char, char) for char in literal(text))


def _beats(pair: PairStats) -> int:
    """1 when A is significantly better than B, -1 when B is, 0 otherwise (by
    the adjusted randomisation p-value)."""
    p = pair.randomization_p_adjusted
    if p is None or p >= ALPHA or pair.mean_diff is None or pair.mean_diff == 0:
        return 0
    return 1 if pair.mean_diff > 0 else -1


def latex_comment(text: str) -> str:
    """A LaTeX comment line holding ``text`` literally (a line break in it is
    shown as an escape, so nothing after it can leave the comment)."""
    return f"% {literal(text)}"


def render_compare_latex(compared: ComparedRuns, labels: Mapping[str, str] | None = None) -> str:
    """A booktabs table of the runs, significance by superscripts, and one of
    the pairs with their bounds and verdicts; each run named by its label
    (``labels``: by run name; the run's name where none is given)."""
    report = compared.report
    k = report.contract.k
    keys = run_keys(report)
    letters = [keys[run.run] for run in report.runs]
    index = {run.run: i for i, run in enumerate(report.runs)}
    named = dict(labels or {})

    def label(run: str) -> str:
        return latex_escape(named.get(run, run))

    better: dict[int, list[str]] = defaultdict(list)
    for pair in report.pairs:
        a, b = index[pair.a], index[pair.b]
        match _beats(pair):
            case 1:
                better[a].append(letters[b])
            case -1:
                better[b].append(letters[a])
    fingerprint = compared.fingerprint[:SHORT_DIGEST]
    qrels = compared.qrels_digest[:SHORT_DIGEST]
    out = [
        latex_comment(
            f"judgepool compare: contract fingerprint {compared.fingerprint}, "
            f"qrels digest {compared.qrels_digest}"
        ),
        latex_comment(f"judgments: {compared.provenance.line()}"),
    ]
    for i, (run, digest) in enumerate(zip(report.runs, compared.run_digests, strict=True)):
        out.append(
            latex_comment(
                f"({letters[i]}) {named.get(run.run, run.run)}: {run.run}, run digest {digest}"
            )
        )
    out += [
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{llrrr}",
        r"\toprule",
        f"& Run & nDCG@{k} & 95\\% CI & Bounds \\\\",
        r"\midrule",
    ]
    for i, run in enumerate(report.runs):
        marks = "".join(sorted(better[i]))
        value = fmt(run.ndcg) + (f"$^{{{marks}}}$" if marks else "")
        out.append(
            f"({letters[i]}) & {label(run.run)} & {value} & "
            f"{interval(run.ci, 3)} & {interval(run.bounds, 3)} \\\\"
        )
    out += [r"\bottomrule", r"\end{tabular}"]
    out += [
        r"\caption{nDCG@" + str(k) + f" over {len(report.population)} queries. A superscript "
        "letter marks a run significantly better than the run of that letter (two-sided paired "
        f"randomisation test, {report.permutations} permutations, $p < {ALPHA}$ after "
        f"{_correction_name(report)}). Bounds: the range of the mean once every unjudged document "
        "is judged. Contract fingerprint \\texttt{" + fingerprint + "}, qrels digest "
        "\\texttt{" + qrels + "}.}",
        r"\end{table}",
        "",
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{llrrrrl}",
        r"\toprule",
        r"A & B & $\Delta$ & $p$ (adj.) & Bounds of $\Delta$ & $P(A > B)$ & Verdict \\",
        r"\midrule",
    ]
    for pair in report.pairs:
        out.append(
            f"{label(pair.a)} & {label(pair.b)} & {fmt(pair.mean_diff)} & "
            f"{pvalue(pair.randomization_p_adjusted)} & {interval(pair.diff_bounds, 3)} & "
            f"{share(pair.p_a_ahead)} & {pair.verdict or '-'} \\\\"
        )
    out += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{Differences of nDCG@" + str(k) + " (A $-$ B), their randomisation $p$-values "
        f"adjusted by {_correction_name(report)}, and their bounds once the unjudged documents "
        "are judged: settled when the sign cannot change. "
        + _latex_draws(report)
        + "Contract fingerprint \\texttt{"
        + fingerprint
        + "}, qrels digest \\texttt{"
        + qrels
        + "}.}",
        r"\end{table}",
    ]
    return "\n".join(out)


def _latex_draws(report: ComparisonReport) -> str:
    if report.prior is None:
        return ""
    prior = latex_escape(report.prior.kind)
    draws = f"{report.draws:,}".replace(",", "{,}")  # LaTeX's thousands separator
    return (
        f"$P(A > B)$: the share of {draws} draws of the unjudged documents' grades "
        f"(each independently, from the {prior} prior) in which A is ahead; probable when it is "
        f"at least {report.confidence:g} or at most {1 - report.confidence:g}. "
    )


def _correction_name(report: ComparisonReport) -> str:
    return {
        "holm": "Holm's correction",
        "bh": "the Benjamini--Hochberg correction",
        "none": "no correction",
    }[report.correction]


# a folder name \includegraphics reads as given (no LaTeX escape works in a path)
_LATEX_PATH: Final = re.compile(r"[A-Za-z0-9._/-]+")


def render_figure_environments(
    compared: ComparedRuns,
    labels: Mapping[str, str],
    folder: str,
    workspace: bool,
    baseline: str,
) -> str:
    """A LaTeX ``figure`` environment for each figure ``judgepool report
    --figures FOLDER`` writes for the same inputs (`judgepool.cli.figure_table`):
    ``\\includegraphics`` of ``FOLDER/<stem>.pdf``, its caption and a label
    ``fig:<stem>``. ``workspace``: the judgments come from one (its figures
    too); ``baseline``: the run the report pairs every other with (its
    ``--baseline``, else the first run). A folder named with other characters
    than letters, digits and ``._/-`` is refused (`InputError`): LaTeX reads
    a path unescaped."""
    if not _LATEX_PATH.fullmatch(folder):
        raise InputError(
            "a folder for LaTeX's \\includegraphics must be named with letters, digits and "
            "'._/-' only; choose another",
            folder,
        )
    facts = caption_facts(compared, labels, baseline)
    path = folder.rstrip("/") or folder
    out: list[str] = []
    for spec in figures_for(workspace):
        out += [
            "",
            r"\begin{figure}[t]",
            r"\centering",
            r"\includegraphics[width=\linewidth]{" + f"{path}/{spec.stem}.pdf" + "}",
            r"\caption{" + latex_escape(spec.caption(facts)) + "}",
            r"\label{fig:" + spec.stem + "}",
            r"\end{figure}",
        ]
    return "\n".join(out)
