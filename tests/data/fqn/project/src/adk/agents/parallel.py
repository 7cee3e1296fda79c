class ParallelAgent:
    """Runs its sub-agents concurrently."""

    def run(self):
        pass
