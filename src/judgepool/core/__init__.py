"""The evaluation engine: contract, ranked-list forming, measures, aggregation,
audit, comparison, and the team's rules. Pure Python, numpy and pyarrow:
nothing here imports sqlite, textual or rich (a test enforces it).

One room a topic:

- `terms`: the contract and what it is made of (grades, types, errors,
  limits, tokens, the measure table, the engines' names);
- `scoring`: a run scored the reference way (`ranking`, `metrics`,
  `aggregate`), and what a score is kept with;
- `fast`: the same scores on a whole run at once, as arrays (the fast
  engine), and the audit on the same columns;
- `auditing`: what would make a score misleading, and a query taken apart;
- `comparing`: tests, exact bounds and verdicts between runs;
- `holes`: the unjudged documents' priors and draws, the settle order, and
  a probability sample of them;
- `team`: grading as a team (consensus, undo, agreement, assignments, roles,
  sign-in tokens);
- `prompting`: asking a model for grades;
- `progress`: how long work reports progress; `readable`: mojibake repaired
  for display.
"""
