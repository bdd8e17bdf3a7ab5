"""One sentence per pair of runs: which one is ahead, whether that is more than
noise, and whether the unjudged documents could still change it.

`pair_sentence` is the one wording of a pair for every output: the table,
Markdown and JSON of ``judgepool compare`` and, in the app, the runs pair by
pair (``p``) and the verdict block of the audit and scores screens. It is a
function of the pair's fields alone (`judgepool.core.comparing.verdicts.PairStats`):
the mean difference, the adjusted p-value, the bootstrap interval, the
verdict with its bounds, and the holes; the caller names the runs (shown as
given: a screen passes names it made safe to show).

Which significance, and why:

- The p-value is the **randomisation (sign-flip) test's, adjusted** for the
  number of pairs compared (``randomization_p_adjusted``), not the t-test's.
  It assumes nothing about the shape of the per-query differences, which are
  bounded, often skewed and few (the demo has six queries), where the t-test
  leans on their mean being normal; the randomisation test is also the one
  Smucker, Allan and Carterette (CIKM 2007) found the IR measures call for,
  and the one behind compare's LaTeX superscripts.
- **Significant** means that p-value is below ``ALPHA`` (0.05) *and* the 95 %
  bootstrap interval of the difference lies on the same side of 0 as the
  difference. The two are different approximations of one question; when
  they disagree (p below 0.05, the interval reaching 0) the evidence is at
  the edge, and the sentence says ``borderline`` rather than picking the
  favourable one. The interval alone never makes a difference significant:
  it is not adjusted for the number of pairs.

The bounds' part follows the verdict (`judgepool.core.comparing.verdicts.verdict_of`):
settled (whatever grades the holes get; "settled by the judgments" when the
two runs have no hole), probable (the draws of the holes' grades put one run
ahead in at least the confidence asked for: "probably holds under the 38
holes (P 0.98)"), could flip (the holes could still reverse it, or make it a
tie; with the draws, how likely the lead holds), tied (0 under every
assignment of the holes). ``holes`` counts the two
runs' own holes; when it is 0 and the pair could still flip, the other runs'
holes are the ones that could (a judged document joins every run's ideal).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Final, Literal

from judgepool.core.comparing.verdicts import PairStats

ALPHA: Final = 0.05
# the power asked of "how many queries": 80 %, for the effect observed
POWER: Final = 0.8
_Z_ALPHA: Final = 1.959963984540054  # two-sided, ALPHA
_Z_POWER: Final = 0.8416212335729143  # one-sided, POWER
# more queries than this many times those compared and the noise wins: no winner
QUERIES_BEYOND: Final = 10
# differences and bounds are written to this many decimals
PLACES: Final = 3

Significance = Literal["significant", "borderline", "not significant", "untested"]


@dataclass(frozen=True)
class PairSentence:
    """A pair's sentence in its three parts (a screen colours them apart).

    ``standing``: who is ahead and by how much (or that the two are tied);
    ``significance``: the test's word and p-value (empty when the runs are
    level or tied); ``holes``: what the unjudged documents can still do
    (empty when tied). ``significant`` is the test's answer as a flag."""

    standing: str
    significance: str
    holes: str
    significant: bool = False
    # the answer to "is A better?" and what to do next (`answer_and_next`)
    answer: str = ""
    next_step: str = ""

    @property
    def text(self) -> str:
        """The evidence: standing, significance and what the holes can do."""
        text = self.standing
        if self.significance:
            text += ", " + self.significance
        if self.holes:
            text += "; " + self.holes
        return text

    @property
    def full(self) -> str:
        """The one sentence outputs print: the answer, the evidence, the next step."""
        text = self.text if not self.answer else f"{self.answer}: {self.text}"
        return text if not self.next_step else f"{text}; next: {self.next_step}"

    @property
    def short(self) -> str:
        """The answer, who is ahead and the next step without its
        parenthesis (how the holes are listed, the queries in all): for a
        screen whose table already shows the p-value, the verdict and P(A
        ahead), and whose plot needs the lines."""
        text = self.standing if not self.answer else f"{self.answer}: {self.standing}"
        step = self.next_step.partition(" (")[0]
        return text if not step else f"{text}; next: {step}"

    def __str__(self) -> str:
        return self.full


def significance_of(
    mean_diff: float | None,
    p_adjusted: float | None,
    bootstrap_ci: tuple[float, float] | None,
) -> Significance:
    """The test's word for a difference (see the module's docstring)."""
    if mean_diff is None or p_adjusted is None:
        return "untested"
    if p_adjusted >= ALPHA or mean_diff == 0:
        return "not significant"
    agrees = bootstrap_ci is not None and (
        bootstrap_ci[0] > 0 if mean_diff > 0 else bootstrap_ci[1] < 0
    )
    return "significant" if agrees else "borderline"


def p_text(p: float) -> str:
    """A p-value in a sentence: 3 decimals without trailing zeros ("0.002",
    "0.31", "1"), "< 0.001" below that, and "< 0.05" where rounding would
    carry a value under ``ALPHA`` up to it."""
    if p < 0.001:
        return "< 0.001"
    text = f"{p:.3f}"
    if p < ALPHA <= float(text):
        return f"< {ALPHA:g}"
    return text.rstrip("0").rstrip(".")


def _amount(value: float) -> str:
    """A difference's size: ``PLACES`` decimals, or "less than 0.001"."""
    size = abs(value)
    if size < 10**-PLACES / 2:
        return f"less than {10**-PLACES:.{PLACES}f}"
    return f"{size:.{PLACES}f}"


def _holes(count: int) -> str:
    return "1 hole" if count == 1 else f"{count} holes"


def share_text(p: float, threshold: float | None = None) -> str:
    """A probability in a sentence: two decimals, "> 0.99" and "< 0.01" where
    rounding would say 1 or 0 of what is not certain; with ``threshold`` (the
    confidence a rule asks for), rounding never crosses it: 0.946 under a
    0.95 rule is "< 0.95", not "0.95"."""
    if p in (0.0, 1.0):
        return f"{p:g}"
    if p > 0.99:
        return "> 0.99"
    if p < 0.01:
        return "< 0.01"
    text = f"{p:.2f}"
    if threshold is not None:
        if p < threshold <= float(text):
            return f"< {threshold:g}"
        if p >= threshold > float(text):
            return f"≥ {threshold:g}"
    return text


def _probable_part(
    a: str, b: str, mean_diff: float, p_a_ahead: float, who: str, confidence: float
) -> str:
    """What the draws say of a pair the bounds leave open, at the confidence met."""
    leader, share = (a, p_a_ahead) if p_a_ahead >= 0.5 else (b, 1 - p_a_ahead)
    # every draw agreeing is not certainty: the bounds still allow the other side
    shown = "> 0.99" if share > 0.99 else share_text(share, confidence)
    ahead = a if mean_diff > 0 else b if mean_diff < 0 else None
    if leader == ahead:
        return f"probably holds under {who} (P {shown})"
    return f"{who} would probably put {leader} ahead (P {shown})"


def _bounds_part(
    a: str,
    b: str,
    mean_diff: float,
    verdict: str | None,
    diff_bounds: tuple[float, float] | None,
    holes: int,
    p_a_ahead: float | None = None,
    models: tuple[str, ...] = (),
    confidence: float = 0.95,
) -> str:
    """What the unjudged documents can still do to the difference; ``models``:
    the models whose labels count among the judgments (``--with-model``)."""
    if verdict is None or diff_bounds is None:
        return "the holes are not bounded under this contract"
    low, high = diff_bounds
    if verdict == "settled":
        bounded_for = 1 if low > 0 else -1
        ahead = 1 if mean_diff > 0 else -1 if mean_diff < 0 else 0
        if bounded_for != ahead:
            # unjudged=condense: the difference shown leaves the holes out, the
            # bounds keep them in place (as unjudged=zero); judged, they decide
            winner = a if bounded_for > 0 else b
            return f"once the holes are judged {winner} is ahead, whatever their grades"
        if holes == 0:
            if models:
                # never "the judgments" alone when a model's labels are among them
                labels = " and ".join(f"model:{name}'s labels" for name in models)
                return f"settled by the judgments with {labels} counted in"
            return "settled by the judgments"
        return "settled, whatever grades the holes get"
    who = _holes(holes) if holes else "the other runs' holes"
    if verdict == "probable" and p_a_ahead is not None:
        return _probable_part(
            a, b, mean_diff, p_a_ahead, "the " + who if holes else who, confidence
        )
    if mean_diff == 0:
        if low < 0 < high:
            return f"{who} could still put either ahead"
        return f"{who} could still put {a if high > 0 else b} ahead"
    # could flip: the bound on the far side of 0 from the difference reaches 0
    reaches = low if mean_diff > 0 else high
    holds = ""
    if p_a_ahead is not None:
        share = p_a_ahead if mean_diff > 0 else 1 - p_a_ahead
        holds = f" (it holds with P {share_text(share, confidence)})"
    if reaches == 0:
        return f"{who} could still make it a tie{holds}"
    return f"{who} could still reverse it{holds}"


def pair_sentence(
    *,
    a: str,
    b: str,
    mean_diff: float | None,
    p_adjusted: float | None,
    bootstrap_ci: tuple[float, float] | None,
    verdict: str | None,
    diff_bounds: tuple[float, float] | None,
    holes: int,
    p_a_ahead: float | None = None,
    models: tuple[str, ...] = (),
    effect_size: float | None = None,
    queries: int | None = None,
    confidence: float = 0.95,
    pairs: int = 1,
) -> PairSentence:
    """The sentence of the pair (``a``, ``b``), A − B = ``mean_diff``, with the
    randomisation test's adjusted p-value ``p_adjusted`` and, when the holes'
    grades were drawn, the share of draws ``p_a_ahead`` that put A ahead;
    ``models``: the models whose labels count among the judgments;
    ``effect_size`` (Cohen's d_z), ``queries`` (the population's size) and
    ``pairs`` (how many the p-values are adjusted over) say how many queries
    the noise asks for; ``confidence``: the draws' rule."""
    if mean_diff is None:
        return PairSentence(
            f"{a} and {b}: no common query to compare them on", "", "",
            answer="no answer", next_step="score both runs on common queries",
        )  # fmt: skip
    if verdict == "tied":
        return PairSentence(
            f"{a} and {b} tied under every assignment of the holes", "", "",
            answer="no winner", next_step="none: judging the holes cannot part them",
        )  # fmt: skip
    holes_part = _bounds_part(
        a, b, mean_diff, verdict, diff_bounds, holes, p_a_ahead, models, confidence
    )
    if mean_diff == 0:
        answer, step = answer_and_next(
            a, b, mean_diff, "not significant", verdict, holes, p_a_ahead, None, queries, pairs
        )
        return PairSentence(
            f"{a} and {b} level (mean difference 0)", "", holes_part,
            answer=answer, next_step=step,
        )  # fmt: skip
    leader, other = (a, b) if mean_diff > 0 else (b, a)
    standing = f"{leader} ahead of {other} by {_amount(mean_diff)}"
    word = significance_of(mean_diff, p_adjusted, bootstrap_ci)
    if word == "untested" or p_adjusted is None:
        significance = "untested"
    elif word == "borderline":
        significance = (
            f"borderline (p_adj {p_text(p_adjusted)}, but the bootstrap interval reaches 0)"
        )
    else:
        significance = f"{word} (p_adj {p_text(p_adjusted)})"
    answer, step = answer_and_next(
        a, b, mean_diff, word, verdict, holes, p_a_ahead, effect_size, queries, pairs
    )
    return PairSentence(standing, significance, holes_part, word == "significant", answer, step)


def queries_for_power(effect_size: float | None, pairs: int = 1) -> int | None:
    """The queries a paired test at ``ALPHA`` needs to find an effect of this
    size (Cohen's d_z) with ``POWER``: ((z_α/2 + z_β) / d)² + z_α/2² / 2 (the
    normal approximation with Guenther's correction for the t test), α
    divided among the ``pairs`` compared (Bonferroni: the p-values are
    adjusted for them, so the test needs that much more); None for no effect."""
    if effect_size is None or effect_size == 0 or not math.isfinite(effect_size):
        return None
    z_alpha = _Z_ALPHA if pairs <= 1 else statistics.NormalDist().inv_cdf(1 - ALPHA / (2 * pairs))
    return math.ceil(((z_alpha + _Z_POWER) / abs(effect_size)) ** 2 + z_alpha**2 / 2)


def _judge_holes(holes: int) -> str:
    listed = "holes --order settle lists them"
    if holes:
        return f"judge its {_holes(holes)} ({listed})"
    return f"judge the other runs' holes ({listed})"


def _more_queries(
    effect_size: float | None, queries: int | None, pairs: int
) -> tuple[str, str] | None:
    """(answer, next step) when the noise decides: how many queries more; None
    when more queries would not tell the runs apart (no effect, or more than
    `QUERIES_BEYOND` times those compared)."""
    needed = queries_for_power(effect_size, pairs)
    if needed is None or queries is None or needed > QUERIES_BEYOND * max(queries, 1):
        return None
    # already enough for the power asked: this sample's noise hid it; a few more
    more = max(needed - queries, 1)
    return (
        "no winner yet (the noise)",
        f"add about {more:,} {'query' if more == 1 else 'queries'} ({needed:,} in all, "
        f"{POWER:.0%} power)",
    )


def answer_and_next(
    a: str,
    b: str,
    mean_diff: float,
    word: Significance,
    verdict: str | None,
    holes: int,
    p_a_ahead: float | None,
    effect_size: float | None,
    queries: int | None,
    pairs: int = 1,
) -> tuple[str, str]:
    """The answer to "is A better?" and the next step. The holes are asked
    first (judging them may move the difference the test sees): a pair they
    could still flip needs them judged; one they probably leave as it is
    answers "probably". Then the noise: a difference the test does not call
    significant needs more queries (how many, at `POWER` for the effect
    seen), or, when more would not tell, has no winner."""
    ahead = a if mean_diff > 0 else b if mean_diff < 0 else None
    if verdict == "could flip":
        return "not known yet", _judge_holes(holes)
    noise = _more_queries(effect_size, queries, pairs) if word != "significant" else None
    if verdict == "probable" and p_a_ahead is not None:
        leader = a if p_a_ahead >= 0.5 else b
        if leader != ahead:
            # the difference the test saw is the one the holes would reverse
            return f"{leader} is probably better, once the holes are judged", _judge_holes(holes)
        if word == "significant":
            return f"{leader} is probably better", _judge_holes(holes) + " to make it certain"
        if noise is not None:
            return noise[0], noise[1] + ", and " + _judge_holes(holes)
        return "no winner", "none: within the noise whatever the holes hold"
    if word == "significant" and ahead is not None:
        return f"{ahead} is better", "none"
    if noise is not None:
        return noise
    return "no winner", "none: more queries would not tell them apart"


def sentence_of(
    pair: PairStats,
    a: str | None = None,
    b: str | None = None,
    *,
    models: tuple[str, ...] = (),
    queries: int | None = None,
    confidence: float = 0.95,
    pairs: int | None = None,
) -> PairSentence:
    """`pair_sentence` of a compared pair, its runs named ``a`` and ``b``
    (default: as the comparison names them); ``models``: the models whose
    labels count among the judgments (the sentence then names them);
    ``queries``: the population's size; ``confidence``: the draws' rule."""
    return pair_sentence(
        a=pair.a if a is None else a,
        b=pair.b if b is None else b,
        mean_diff=pair.mean_diff,
        p_adjusted=pair.randomization_p_adjusted,
        bootstrap_ci=pair.bootstrap_ci,
        verdict=pair.verdict,
        diff_bounds=pair.diff_bounds,
        holes=pair.holes,
        p_a_ahead=pair.p_a_ahead,
        models=models,
        effect_size=pair.effect_size,
        # every query of the population is a win, a tie or a loss
        queries=pair.wins + pair.ties + pair.losses if queries is None else queries,
        confidence=confidence,
        pairs=_multiplicity(pair) if pairs is None else pairs,
    )


def _multiplicity(pair: PairStats) -> int:
    """How many pairs the pair's p-value was adjusted over, as far as the
    pair itself tells (its adjusted p over its raw one; 1 where the
    adjustment capped it or left it): for callers that do not say."""
    raw, adjusted = pair.randomization_p, pair.randomization_p_adjusted
    if not raw or adjusted is None or adjusted >= 1:
        return 1
    return max(1, round(adjusted / raw))
