class SequentialAgent:
    """Runs its sub-agents one after another."""
