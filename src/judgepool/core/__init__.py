"""The evaluation engine: contract, ranked-list forming, measures, aggregation, audit.

What every layer names alike is defined here once: `measures` (each reported
value's field, label, trec_eval name and format), `engines` (the ``fast`` and
``reference`` engines' names, the `Engine` type) and `audit_gate` (which audit
findings fail ``audit --fail-on``).

Nothing here imports sqlite, textual or rich; a test enforces it.
"""
