"""Reading runs: scoring and auditing them, from files or stored in a
workspace, one run or many at once. One module each:

- `sources`: where a run comes from (a file, or a run stored in a
  workspace), chosen once where the run is named: a plain value, which a
  worker process is handed as it is;
- `passes`: the one path every reading of a run takes (read, index, score
  and/or audit, summarise), ``read(against, source, wanted)``, and the one
  place that picks the engine and the reading (whole, or in chunks);
- `scoring`: score one run here (compare, holes, the app's screens);
- `streaming`: a large run file read in chunks of whole queries, in bounded
  memory (scored, audited or both: whatever pass it is handed);
- `parallel_runs`: many runs at once (``judgepool score`` and ``audit``), in
  worker processes that each call `passes.read`, outcomes in order;
- `worker_pool`: the worker processes; `parallel_preload`: what the process
  that starts them imports once.

The package imports none of its modules: each is imported where it is used,
so that ``judgepool --help`` loads none of the engine.
"""
