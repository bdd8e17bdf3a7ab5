"""The app's screens, one module each (the grade screen a package of its parts):

- `grade`: grading, one document at a time (`judgepool.tui.screens.grade`).
- `review`: what the audit and scores screens share (`ReviewScreen`).
- `audit`: a run's holes and findings; `scores`: every run's score, per query.
- `adjudicate`: settling disagreements; `adjudicate_keys`: its bindings.
- `agreement`: how far the annotators agree.
- `help`: every key, read from the bindings.
- `sign_in`: the sign-in of a served session.

Each screen gets its data through `judgepool.services` (never SQL), sees the
app through a protocol of `judgepool.tui.hosts` (never by importing the app
module), and the screens that follow judgments are told of them with
`judgepool.tui.messages.GradesSaved` (``follow_grades``).
"""
