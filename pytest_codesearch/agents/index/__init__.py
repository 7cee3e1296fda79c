"""What the built-in agents index: snapshot files by blob id, tokens, postings, and their stores on disk."""
