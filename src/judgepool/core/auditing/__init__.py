"""What would make a score misleading, found and shown.

- `audit`: a run's audit (duplicates, unjudged documents, unknown and missing
  queries, ties); `query_audit`: the same, query by query; `audit_gate`:
  which findings fail ``audit --fail-on``;
- `drilldown`: one query of one run taken apart; `judged_share`: how much of
  each rank 1..k is judged; `ndcg_spread`: a run's per-query nDCG in five
  numbers (the scores screen's box plot); `result_order`: per-query records
  in the order asked.
"""
