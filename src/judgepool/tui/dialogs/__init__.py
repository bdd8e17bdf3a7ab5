"""The app's modal dialogs, one module each. Each is pushed over a screen and
dismisses with its result; the contract dialog lives with the contract bar in
`judgepool.tui.widgets.score_contract`.

- Grading: a note on a judgment (`note`), which query to grade (`goto_query`),
  full-text search for documents the pool missed (`search`), the team's
  guidelines (`guidelines`), the annotator's own unsure and noted items
  (`own_items`).
- Scores: two runs compared query by query (`comparison`), one query's ranked
  list beside the ideal list (`drilldown`), two runs' lists side by side
  (`side_by_side`), every pair of runs with its verdict (`verdicts`), the holes
  of every run at once (`all_holes`).
- `screen_keys`: the app's screen keys inside the dialogs that are views of
  their own.
"""
