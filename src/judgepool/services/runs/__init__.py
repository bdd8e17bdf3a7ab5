"""Reading runs: scoring and auditing them, from files or stored in a
workspace, one run or many at once. One module each:

- `scoring`: score a run (``judgepool score``, the review screens, compare);
- `auditing`: audit a run, or score and audit it in one pass (``judgepool
  audit``, ``score --audit``, the audit screen);
- `streaming`: a large run file read in chunks of whole queries, in bounded
  memory;
- `streamed_audit`: a large run file audited in chunks;
- `parallel_runs`: many runs at once, in worker processes, results in order;
- `worker_pool`: the worker processes; `parallel_preload`: what the process
  that starts them imports once.

The package imports none of its modules: each is imported where it is used,
so that ``judgepool --help`` loads none of the engine.
"""
