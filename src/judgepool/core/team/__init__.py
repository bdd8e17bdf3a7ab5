"""Grading as a team, as rules on plain rows that the store reads and the
services apply.

- `consensus`: which grade stands for an item under each consensus rule, the
  disagreements, the judged universe (a model's labels set aside); `undo`:
  which event an undo takes back, and what it brings back;
- `agreement`: κ and α; `raters`: the kinds of rater, and what a report left
  out; `confusion`: a model's grades against the people's; `pair_confusion`:
  two annotators' confusion table (the agreement screen's heat map);
- `assignment` and `assignment_moves`: balanced assignments, and what one
  changes; `roles`: who may reach what; `confusables`: names that look alike;
  `sign_in_tokens`: tokens, kept as salted hashes.
"""
