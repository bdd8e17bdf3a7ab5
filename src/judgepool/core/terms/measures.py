"""Every measure an evaluation reports, once: its field, its label, its
trec_eval name and how its value is written.

A view chooses which measures it shows and in what order; how each is named
and written is read from here, so ``judgepool score``'s tables and trec lines,
the app's scores screen and its drill-down spell ``nDCG@10``, ``P_10`` or
``cand-only`` alike. ``field`` is the attribute of the per-query record
(`judgepool.core.terms.types.QueryResult`) or of the summary (`Summary`) that holds
the value; a test checks each names one.

A label names the cutoff where the value depends on it (``nDCG@10``); a view
too narrow for it may leave the cutoff out (``DCG``) or take the measure's
short name (``cand-only``). trec_eval's names are those of its ``-m`` measures,
with the cutoff filled in (``ndcg_cut_10``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# decimals of a value everywhere it is written: trec_eval prints 4
PLACES: Final = 4


@dataclass(frozen=True)
class Measure:
    """One reported value: where it is held, how it is named and written."""

    field: str
    name: str
    # whether the value depends on the cutoff k (its label then names it)
    at_k: bool = False
    # trec_eval's name, ``{k}`` standing for the cutoff; None: trec_eval has none
    trec_eval: str | None = None
    # decimals it is written with; None for a count (written as an integer)
    places: int | None = PLACES
    # the name in a narrow table, where it differs
    short_name: str | None = None

    @property
    def short(self) -> str:
        """The name in a narrow table."""
        return self.short_name or self.name

    def label(self, k: int, *, short: bool = False) -> str:
        """The label under the cutoff ``k``: ``nDCG@10``; ``short``: the narrow name's."""
        name = self.short if short else self.name
        return f"{name}@{k}" if self.at_k else name

    @property
    def template(self) -> str:
        """The label with ``{k}`` for the cutoff, for `str.format`."""
        return f"{self.name}@{{k}}" if self.at_k else self.name

    def trec_name(self, k: int) -> str:
        """trec_eval's name of the measure under the cutoff ``k``."""
        if self.trec_eval is None:
            raise ValueError(f"trec_eval has no measure for {self.field}")
        return self.trec_eval.format(k=k)

    def shown(self, value: float | None) -> str:
        """The value as every table writes it; ``-`` when it is not defined."""
        if value is None:
            return "-"
        if self.places is None:
            return str(value)
        return f"{value:.{self.places}f}"


# the per-query values and the summary's means
NDCG: Final = Measure("ndcg", "nDCG", at_k=True, trec_eval="ndcg_cut_{k}")
DCG: Final = Measure("dcg", "DCG", at_k=True)
IDCG: Final = Measure("idcg", "IDCG", at_k=True)
CANDIDATE_NDCG: Final = Measure(
    "candidate_ndcg", "candidate-only", at_k=True, short_name="cand-only"
)
POOLED_NDCG: Final = Measure("ndcg_pooled", "pooled", at_k=True)
JUDGED_AT_K: Final = Measure("judged_at_k", "judged", at_k=True)
PRECISION: Final = Measure("precision", "P", at_k=True, trec_eval="P_{k}")
RECALL: Final = Measure("recall", "R", at_k=True, trec_eval="recall_{k}")
RR: Final = Measure("rr", "RR", trec_eval="recip_rank")

# counts: of documents (per query, summed in the summary) and of queries
UNJUDGED_AT_K: Final = Measure("unjudged_at_k", "unjudged", at_k=True, places=None)
RETURNED: Final = Measure("returned", "returned", places=None)
DUPLICATES: Final = Measure("duplicates", "duplicates", places=None)
QUERIES: Final = Measure("queries", "queries", places=None)
SCORED: Final = Measure("scored", "scored", trec_eval="num_q", places=None)
ZERO_IDCG: Final = Measure("zero_idcg", "zero-IDCG", places=None)
EXCLUDED: Final = Measure("excluded", "excluded", places=None)
MISSING: Final = Measure("missing", "missing", places=None)
UNKNOWN: Final = Measure("unknown", "unknown", places=None)

MEASURES: Final[tuple[Measure, ...]] = (
    NDCG, DCG, IDCG, CANDIDATE_NDCG, POOLED_NDCG, JUDGED_AT_K, PRECISION, RECALL, RR,
    UNJUDGED_AT_K, RETURNED, DUPLICATES, QUERIES, SCORED, ZERO_IDCG, EXCLUDED, MISSING, UNKNOWN,
)  # fmt: skip

# the measures trec_eval's lines give for each query, in the order written
# (trec_eval writes the count of queries, ``num_q``, for ``all`` only, first)
TREC_EVAL_MEASURES: Final[tuple[Measure, ...]] = (NDCG, PRECISION, RECALL, RR)
