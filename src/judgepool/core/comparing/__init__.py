"""Comparing runs: tests, exact bounds and verdicts.

- `comparison`: wins, ties and losses; `significance`: the paired tests;
  `comparison_size`: a comparison's cost, and its limit;
- `bounds` and `bound_tables`: the exact bounds of a pair's difference under
  unjudged documents; `comparison_draws`: a comparison's prior and draws,
  beside its bounds (`judgepool.core.holes`);
- `verdicts`: the verdict per pair (settled, tied, probable, could flip);
  `verdict_words`: its sentence; `query_differences`: a pair's per-query
  differences sorted, marked where the holes could reverse them.
"""
