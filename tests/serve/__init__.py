"""Tests of judgepool serve: sign-in, tokens, and the app in a real browser."""
