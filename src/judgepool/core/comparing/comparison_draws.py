"""The draws of a comparison: its prior, the draws of every hole's grade and
each pair's share of them, or why there are none (`comparison_draws`).

`judgepool.core.comparing.verdicts.compare` runs this on a thread of its own, beside
the bounds and the statistics (the three are independent): the prior is
learnt from the compared runs' top k (`judgepool.core.holes.priors`), the draws are
`judgepool.core.holes.draws.draw_means`, and every pair's P(A ahead), expected
difference and interval come from `DrawnMeans.pairs`. Definitions:
docs/evaluation-contract.md, "Probable verdicts".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Final

from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes.draws import (
    DEFAULT_DRAWS,
    DrawnMeans,
    PairDraws,
    default_draws,
)
from judgepool.core.holes.hole_prior import RUNS_PRIOR_MINIMUM, RUNS_PRIOR_QUERIES, runs_prior
from judgepool.core.holes.prior_draws import (
    PARAMETER_SETS,
    check_prior,
    draw_with_parameters,
    hole_ids,
    problem_with,
)
from judgepool.core.holes.priors import DEFAULT_PRIOR, ModelLabels, Prior, model_prior, rank_prior
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.types import Judgments

INDEPENDENCE_NOTE: Final = "each hole's grade is drawn from its prior independently of the others"
SETS_NOTE: Final = (
    f"the runs prior's parameters are drawn too, {PARAMETER_SETS} sets, so a query's holes "
    "move together"
)

Drawn = tuple[Prior | None, DrawnMeans | None, str | None, list[PairDraws | None]]


def comparison_draws(
    tops: Sequence[Mapping[str, TopK]],
    queries: Sequence[str],
    judgments: Judgments,
    contract: Contract,
    draws: int | None,
    seed: int,
    model: ModelLabels | None,
    on_draws: Callable[[int, int], None] | None,
    pairs: Sequence[tuple[int, int]],
    prior_kind: str = DEFAULT_PRIOR,
) -> Drawn:
    """The prior, the draws and each pair's share of them (None where there
    are no draws), and what the draws assume or why there are none: ``draws``
    of the holes of ``tops`` (each compared run's top k by query) on the
    population ``queries`` (None: `draws.default_draws`), seeded with
    ``seed``, under ``prior_kind`` (``runs``, with its check, or ``rank``)
    and, where it labelled a hole, ``model``'s labels."""
    none: list[PairDraws | None] = [None] * len(pairs)
    if draws is not None and draws < 0:
        raise ContractError(f"draws must be 0 or more, got {draws}")
    if draws == 0:
        return None, None, "no draws asked for (--draws 0): no probable verdicts", none
    if contract.universe != "judged":
        return None, None, "no draws under universe=candidates (as for the bounds)", none
    if not queries:
        return None, None, "no common query: nothing to draw", none
    if prior_kind not in ("runs", "rank"):
        raise ContractError(f"the prior is runs or rank (or a model's), not {prior_kind!r}")
    rank = rank_prior(tops, queries, contract)
    calibrated = None
    if model is not None:
        calibrated = model_prior(model.name, model.labels, judgments, contract)
    runs = None
    notes = []
    if prior_kind == "runs":
        runs = runs_prior(tops, queries, judgments, contract.scale.grades, contract.k)
        if runs is None:
            notes.append(
                "the rank prior: the runs prior needs at least "
                f"{RUNS_PRIOR_MINIMUM} judged documents of two grades or more in the top k, "
                f"over {RUNS_PRIOR_QUERIES} queries or more"
            )
    prior = Prior(rank, calibrated, runs=runs)
    problem = problem_with(tops, queries, judgments, contract, prior)
    if calibrated is not None:
        prior = replace(prior, model_holes=problem.model_holes)
    notes.insert(0, SETS_NOTE if runs is not None else INDEPENDENCE_NOTE)
    if draws is None:
        draws = default_draws(problem.holes)
        if draws < DEFAULT_DRAWS:
            notes.append(
                f"{draws:,} draws, not {DEFAULT_DRAWS:,}: the comparison has {problem.holes:,} "
                "holes (--draws N asks for more)"
            )
    if contract.unjudged == "condense":
        notes.append("the draws keep the holes in their places (as under unjudged=zero)")
    if contract.zero_idcg == "exclude":
        notes.append("a draw's zero IDCG counts as 0 (as under zero_idcg=zero)")
    holes = hole_ids(tops, queries, contract.k)
    drawn = draw_with_parameters(problem, prior, holes, draws, seed, on_draws)
    if runs is not None:
        # what hiding judged documents does to the expected nDCG: the runs'
        # expected values and intervals are corrected by it (`_run_draws`)
        check = check_prior(
            tops, queries, judgments, contract, drawn.means.mean(axis=0), seed, runs.fit,
            runs.signals,
        )  # fmt: skip
        prior = replace(prior, check=check)
    paired: list[PairDraws | None] = [*drawn.pairs([a for a, _ in pairs], [b for _, b in pairs])]
    return prior, drawn, "; ".join(notes), paired
