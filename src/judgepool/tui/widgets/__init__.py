"""Widgets the screens are built from. Data text reaches them as `rich.text.Text`
made by `judgepool.tui.widgets.highlight`, so it is never parsed as markup.

- The grade screen's: `grading_panels` (query, document, scale, progress),
  `grade_status` (the status line and the session's tally), `grade_clock`,
  `settle_order` (the holes that settle comparisons, first), `item_grades`
  (every grade of a disagreement, for adjudication).
- The audit screen's: `audit_findings` (summary, per-query table, holes),
  `audit_status` (what a query's score stands on), `judged_share_plot` (the
  run's judged share by rank).
- The scores screen's: `score_runs` (one row per run), `score_table` (one run's
  queries), `ndcg_plot` (every run's per-query nDCG as box plots),
  `score_contract` (the contract bar and its
  dialog), `score_format` (cells as Rich text), `pair_verdicts` (whether the
  holes could change a pair's order), `pair_plot` (a pair's per-query
  differences sorted, the ones the holes could reverse marked), `side_by_side`
  (one run's column of the side-by-side view).
- The agreement screen's: `confusion_plot` (the highlighted pair's confusion
  table as a heat map).
- `data_plot`: the plots' base (textual-plotext, drawn again at each size,
  giving way when too small, names drawn as typed).
- `highlight`: data text as Rich `Text`, query terms highlighted.
"""
