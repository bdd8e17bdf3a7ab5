"""The evaluation engine: contract, ranked-list forming, measures, aggregation, audit.

It also holds the rules of grading as a team on plain rows, which the store
reads and the services apply: `consensus` (which grade stands for an item
under each consensus rule, the disagreements, the judged universe) and
`undo` (which event an undo takes back, and what it brings back).

Nothing here imports sqlite, textual or rich; a test enforces it.
"""
