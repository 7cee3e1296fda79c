"""Report writers: each renders a finished ``RunReport`` and decides nothing (terminal, markdown, HTML, CSV, JSON, TREC)."""
