"""The use cases that both the command line and the app call, one module each.

- `workspace`: create and open a workspace (and the store's types a caller names);
- `imports`: queries, documents and runs into a workspace (`streamed_import`:
  a large run in bounded memory); `qrels`: qrels in and out;
- `judging`: grade, undo, annotators' roles; `consensus`: the judged universe under a rule
  (the store's rows resolved by `judgepool.core.team.consensus`, with the digest);
- `pools`: choose the documents to judge; `search_judge`: find documents the
  pool missed, and judge them;
- scoring runs: `judgments_source` (the judgments runs are scored against, a
  qrels file or a workspace under a rule, read once), `runs` (a subpackage:
  score and audit runs, files or stored, one or many at once), `verdicts`
  (compare runs, and the holes between them and a verdict), `sample` (a
  sample of the holes, and the estimates from it), `model_labels` (a
  model's grades as evidence for probable verdicts), `prelabel`,
  `prelabel_asking`, `prelabel_items` and `prelabel_raters` (a model on an
  OpenAI-compatible endpoint grades items; one request, bounded; which
  items, and their prompts; the rater's name, and taking its labels back),
  `confusion` (a model's grades against the
  people's), `evaluations`
  (store scores and say whether they are current; `app_evaluations`: the app's);
- `review`: what the app's audit and scores screens show; `all_holes`: every
  run's holes at once; `app_queries` and `text_parts`: what its grade screen
  reads; `live`: following a workspace other processes write to;
  `workspace_comparison`: every stored run compared with every other (the
  app's verdict views); `settle_queue`: the holes in settle order, narrowed
  one grade at a time (the grade screen's settle order);
- grading as a team: `assignments` (assign, progress; `settle_holes`: the
  holes ``assign --settle`` hands out; `assignment_settle`: its budget, kept
  and topped up; `assignment_sample`: a sample's holes, handed out),
  `agreement`, `disagreements` (with notes and filters; `raters`: which
  raters both compare), `adjudication`
  (who settles disagreements, their queue, the settling grade), `undo` (the
  command line's), `notes` (export), `own_review` (an annotator's own items
  and rate), `roles` (who acts in which role), `sign_in` (tokens for served
  sessions), `guidelines` (the team's guidelines), `settings` (blind grading);
- `entry_checks` and `closest`: the checks every use case applies to what a user
  gives; `demo`: the demo workspace.

Services hold no SQL (a test checks it): what they read and write goes
through `judgepool.store`, and what they compute is in `judgepool.core`.
"""
