"""The evaluation engine: contract, ranked-list forming, measures, aggregation, audit.

Nothing here imports sqlite, textual or rich; a test enforces it.
"""
