"""Asking a model for grades (``judgepool prelabel``).

- `grading_prompt`: what a model is asked for one item, its digest, and the
  strict reading of its answer; `retry_delay`: how long to wait before
  asking again.
"""
