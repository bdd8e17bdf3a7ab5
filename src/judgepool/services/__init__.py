"""The use cases that both the command line and the app call, one module each.

- `workspace`: create and open a workspace (and the store's types a caller names);
- `imports`: queries, documents and runs into a workspace; `qrels`: qrels in and out;
- `judging`: grade, undo, annotators' roles; `consensus`: the judged universe under a rule;
- `pools`: choose the documents to judge; `scoring`: score and audit runs (files or
  stored); `judgments_source`: the judgments they are scored against (a qrels
  file, or a workspace under a rule), read once; `evaluations`: store scores
  and say whether they are current;
- `review`: what the app's audit and scores screens show; `app_queries` and
  `text_parts`: what its grade screen reads;
- grading as a team: `assignments` (assign, progress; `settle_holes`: the
  holes ``assign --settle`` hands out), `agreement`, `disagreements` (with
  notes and filters; `raters`: which raters both compare), `undo` (the
  command line's), `notes` (export), `settings` (blind grading);
- `entry_checks` and `closest`: the checks every use case applies to what a user
  gives; `demo`: the demo workspace.

Services hold no SQL (a test checks it): what they read and write goes
through `judgepool.store`, and what they compute is in `judgepool.core`.
"""
