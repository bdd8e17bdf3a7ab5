"""The terms every number is given under: the contract and what it is made of.

- `contract`: every choice behind a score, one frozen, validated value, with
  the metadata the command-line options and the app's dialog are made from;
- `grades`: the scale and the gain of each grade; `types`: run entries,
  judgments, results; `errors`: what the engine raises; `limits`: the bounds
  on every number given; `tokens`: the one grammar of IDs, names and numbers;
  `entity_pattern`: the ``entity`` pattern, run by RE2;
- `measures`: each reported value's field, label, trec_eval name and format
  (the one measure table every layer names alike); `engines`: the ``fast``
  and ``reference`` engines' names.
"""
