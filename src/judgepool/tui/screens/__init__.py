"""The app's screens, one module each: grade, audit, scores, help, and
`review`, the base the audit and scores screens share.

Each screen gets its data through `judgepool.services` (never SQL), sees the
app through a protocol of `judgepool.tui.hosts` (never by importing the app
module), and the review screens learn about new judgments from the
`GradeSaved` announcements they subscribe to.
"""
