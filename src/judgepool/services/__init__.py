"""The use cases that both the command line and the app call."""
