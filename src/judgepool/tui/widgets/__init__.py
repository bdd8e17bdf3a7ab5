"""Widgets the screens are built from. Data text reaches them as `rich.text.Text`
made by `judgepool.tui.widgets.highlight`, so it is never parsed as markup."""
