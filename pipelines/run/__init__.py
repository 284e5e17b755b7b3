"""The run: the plan that orders the steps and skips those with unchanged inputs, the data
checks run after them, and the in-process runner behind ``gdan run``."""
