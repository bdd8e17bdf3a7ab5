"""Scoring a run, the reference way, and what a score is kept with.

- `ranking`: one query's ranked list formed under the contract; `metrics`:
  the reference measures, plain, one query at a time; `aggregate`: a whole
  run (the population of queries, the refusals, the means), where both
  engines meet (`judgepool.core.fast` is the fast one);
- `arrow`: pyarrow arrays without pandas; `scored_run`: a score with its
  digests and fingerprint; `pooling`: which documents enter a pool; `top_k`:
  each run's top k, the reference.
"""
