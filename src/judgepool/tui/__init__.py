"""The terminal app: grade, audit and review a workspace from the keyboard.

`create_app(workspace, annotator)` in `judgepool.tui.app` builds the app; the
command line and the tests both use it. Importing this package loads nothing
heavy: Textual is imported by the modules that need it.

- `app`: the shell that holds the workspace, the screens and the roles' guard;
  `app_keys`: its keys.
- `hosts`: what the screens need of the app, as protocols (no screen imports `app`).
- `grading`: the grading plan and where the annotator is in it (plain Python).
- `grade_writer`: the one way a screen writes a judgment (and announces it);
  `digit_keys`: the digit keys of the screens that grade, offered on the scale.
- `live`: taking in what other terminals wrote, twice a second.
- `messages`: the judgment events the app announces, and how views follow them.
- `background`: reading the workspace in thread workers, the one way views do it.
- `scores_ahead`: every run scored while a lead grades, so the scores screen
  opens on numbers.
- `readers`: the read connections those workers borrow.
- `refusals`: a refusal in the app's words, with the app's way out.
- `reach`: what each screen needs of a role, and the guard that holds it.
- `palette`: the command palette's commands; `footer_keys`: help and quit, first
  in every footer.
- `served_driver`: the driver of a browser session (``judgepool serve``).
- `screens`, `dialogs`, `widgets`: the screens, the modal dialogs and the
  widgets they are built from; `app.tcss`: the shared style rules.
"""
