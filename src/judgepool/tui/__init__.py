"""The terminal app: grade, audit and review a workspace from the keyboard.

`create_app(workspace, annotator)` in `judgepool.tui.app` builds the app; the
command line and the tests both use it. Importing this package loads nothing
heavy: Textual is imported by the modules that need it.
"""
