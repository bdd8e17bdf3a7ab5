"""Widgets the screens are built from. Data text reaches them as `rich.text.Text`
made by `judgepool.tui.widgets.highlight`, so it is never parsed as markup.

- The grade screen's: `grading_panels` (query, document, scale, progress),
  `grade_status` (the status line and the session's tally), `grade_clock`,
  `settle_order` (the holes that settle comparisons, first), `item_grades`
  (every grade of a disagreement, for adjudication).
- The audit screen's: `audit_findings` (summary, per-query table, holes),
  `audit_status` (what a query's score stands on).
- The scores screen's: `score_runs` (one row per run), `score_table` (one run's
  queries), `score_histogram`, `score_contract` (the contract bar and its
  dialog), `score_format` (cells as Rich text), `pair_verdicts` (whether the
  holes could change a pair's order), `side_by_side` (one run's column of the
  side-by-side view).
- `highlight`: data text as Rich `Text`, query terms highlighted.
"""
