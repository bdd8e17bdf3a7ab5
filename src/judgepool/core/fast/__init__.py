"""The fast engine: the scores and the audit of `core.scoring.aggregate` and
`core.auditing.audit`, computed on a whole run (or a chunk of whole queries)
at once, as arrays.

What the rest of judgepool calls:

- `run_pass`: the one pass the services run over a run
  (`judgepool.services.runs.passes`): each chunk of whole queries (a run read
  whole is one) indexed once, then scored (`chunked`), audited (`audit`) or
  both;
- `rescore`: a run's per-query scores kept, and only the queries whose
  judgments changed scored again (the app's live scores);
- `top`: each judged query's top k (the comparisons' bounds and draws).

`engine.evaluate_columns` is the same evaluation on a whole run in one call:
the tests hold it to the reference (`aggregate.evaluate` over
`formats.trec.read_run`) on random runs under every contract parameter, with
the same `Evaluation` and the same `DuplicatesRejected` / `UnjudgedRejected`
entries: both engines hand their scores of the queries the run returned to
`aggregate.evaluate_returned`, which does the rest. Importing this package
loads nothing: each module is imported where it is used.

How it stays fast on millions of lines, in numpy and pyarrow, with Python loops
only over per-query values and small sets of rows, one module per step:

- `run`: the columns checked, in the types the engine computes with.
- `layout` and `order`: the queries and the ranked order. Most runs keep each
  query's lines together and are already in score order; only what is not is
  sorted, and the order is kept as a sparse permutation (the moved positions
  only).
- `keys`: each line gets a 64-bit hash of (query, document or entity) with its
  line index packed into the low bits; sorting (in parts that split no query,
  in parallel, while `layout` orders the run) puts equal hashes side by side
  and lets every judged (query, document) pair find its lines by binary
  search. An ID's hash is a function of its own bytes only (see
  `keys.StringHasher`): the run's and the judgments' IDs, hashed apart, meet.
  An ``entity`` pattern is applied to the distinct document IDs only, all at
  once, by Arrow's RE2 kernel (`judgepool.core.terms.entity_pattern`).
- `matching` and `duplicates`: every match the hashes propose is verified
  exactly, so a hash collision costs time, never correctness. Whatever the
  hashes say, an "unjudged" document of the top k is checked exactly against
  the judgments (`matching.confirm_unjudged`), with Arrow's exact set look-up.
- `judged`, `measures`, `ties`, `unjudged`, `scoring`: only judged lines carry
  gain, so DCG, ideal DCG, tie ranges and the unjudged scenarios are sums over
  sparse terms, added in rank order from the same discount and gain values as
  `metrics.py`: the sums are those of the reference, bit for bit.
- `engine`: `evaluate_columns`, the steps in order, handed to the orchestration
  both engines share; `indexed`: the run made ready for matching; `arrays`: the
  array types and index arithmetic the modules share.
- `chunked`: a run evaluated chunk by chunk and merged.
- `audit` (with `audit_duplicates`, `audit_ranks`, `audit_ties`): the audit of
  `core.auditing.audit`, item for item, on the same columns.
"""
