"""The app's screens, one module each: grade, audit, scores, help.

Each screen gets its data through `judgepool.services` (never SQL) and learns
about new judgments from the `GradeSaved` message the app posts to it.
"""
