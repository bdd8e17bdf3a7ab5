"""Reading runs: scoring and auditing them, from files or stored in a
workspace, one run or many at once. One module each:

- `sources`: where a run comes from (a file, or a run stored in a
  workspace), chosen once where the run is named;
- `passes`: the one path every reading of a run takes (read, index, score
  and/or audit, summarise), and the one place that picks the engine and the
  reading (whole, or in chunks);
- `scoring`: score a run (``judgepool score``, the scores screen, compare);
- `auditing`: audit a run, or score and audit it in one pass (``judgepool
  audit``, ``score --audit``, the audit screen);
- `streaming`: a large run file read in chunks of whole queries, in bounded
  memory (scored, audited or both: whatever pass it is handed);
- `parallel_runs`: many runs at once, in worker processes, results in order;
- `worker_pool`: the worker processes; `parallel_preload`: what the process
  that starts them imports once.

The package imports none of its modules: each is imported where it is used,
so that ``judgepool --help`` loads none of the engine.
"""
