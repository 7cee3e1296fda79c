"""The agents that ship with pytest-codesearch: search baselines, sanity checks and replay."""
