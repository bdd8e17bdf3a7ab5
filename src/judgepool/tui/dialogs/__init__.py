"""The app's modal dialogs, one module each: a note on a judgment (`note`), two
runs compared query by query (`comparison`) and one query's ranked list beside
the ideal list (`drilldown`). Each is pushed over a screen and dismisses with
its result; the contract dialog lives with the contract bar in
`judgepool.tui.widgets.score_contract`."""
