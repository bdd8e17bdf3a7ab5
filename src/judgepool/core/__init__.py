"""The evaluation engine: contract, ranked-list forming, measures, aggregation, audit.

What every layer names alike is defined here once: `measures` (each reported
value's field, label, trec_eval name and format), `engines` (the ``fast`` and
``reference`` engines' names, the `Engine` type) and `audit_gate` (which audit
findings fail ``audit --fail-on``).

Nothing here imports sqlite, textual or rich; a test enforces it.

- the contract and its values: `contract` (every choice behind a score, one
  frozen value), `grades` (the scale and the gain of each grade), `types` (run
  entries, judgments, results), `errors` (what the engine raises), `limits`
  (the bounds on every number given), `tokens` (the one grammar of IDs, names
  and numbers), `entity_pattern` (the ``entity`` pattern, run by RE2);
- scoring: `ranking` (one query's ranked list under the contract), `metrics`
  (the reference measures), `aggregate` (a whole run: the population of
  queries and the means), `fast` (the same, on a whole run at once, as
  arrays), `arrow` (pyarrow arrays without pandas), `scored_run` (a score with
  its digests and fingerprint), `pooling` (which documents enter a pool),
  `top_k` (each run's top k, the reference);
- the audit: `audit` (what would make a score misleading), `query_audit` (the
  same, query by query), `drilldown` (one query of one run taken apart),
  `judged_share` (how much of each rank 1..k is judged), `ndcg_spread` (a
  run's per-query nDCG in five numbers, the scores screen's box plot),
  `result_order` (per-query records in the order asked);
- comparing runs: `comparison` (wins, ties and losses), `significance`
  (paired tests), `bounds` and `bound_tables` (exact bounds under unjudged
  documents), `priors` and `draws` (what a hole's grade probably is, from the
  judged documents at its rank or a model's label, and seeded joint draws of
  every hole's grade: the probable verdicts), `hole_prior` (the runs prior:
  which compared runs retrieved a hole and where, and its query's own
  effect, fitted on the judged documents), `prior_draws` (the draws with the
  runs prior's parameters drawn too, and the prior's check on the judged
  documents), `comparison_draws` (a comparison's prior and draws, beside its
  bounds), `verdicts` and `verdict_words`
  (the verdict per pair and its sentence), `settle` and `hole_order` (which
  holes to judge next, and in what order to read them), `settle_draws` (the
  settle order's draws, one query at a time, with what each hole's grade
  would do), `sample_design` and `sample_estimate` (a probability sample of
  the holes, and the estimates from it that hold whatever the prior says),
  `comparison_size` (a comparison's cost, and its limit),
  `query_differences` (a pair's per-query differences sorted, marked where
  the holes could reverse them: the pairs view's plot);
- grading as a team, as rules on plain rows that the store reads and the
  services apply: `consensus` (which grade stands for an item under each
  consensus rule, the disagreements, the judged universe), `undo` (which
  event an undo takes back, and what it brings back), `agreement` (κ and α),
  `raters` (the kinds of rater, and what a report left out), `confusion` (a
  model's grades against the people's), `pair_confusion` (two annotators'
  confusion table: the agreement screen's heat map), `assignment` and
  `assignment_moves` (balanced assignments, and what one changes), `roles`
  (who may reach what), `confusables` (names that look alike),
  `sign_in_tokens` (tokens, kept as salted hashes);
- a model's labels (``prelabel``): `grading_prompt` (what a model is asked
  for one item, its digest, the strict reading of the answer), `retry_delay`
  (how long to wait before asking again);
- `progress`: how long work reports progress; `readable`: mojibake repaired
  for display.
"""
