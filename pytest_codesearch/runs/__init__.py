"""Runs as records: the journal, the end of a run, merging shards, resuming, saved history, comparisons, gates."""
