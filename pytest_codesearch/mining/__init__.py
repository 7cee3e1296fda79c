"""Mining: turn a git history into a gold set whose cases search each commit's parent (issue 4).

``generate.generate_goldset`` is the entry point; ``config.FilterConfig`` says which commits are kept;
``walk`` reads commits and diffs trees, ``files`` sorts a commit's paths, ``classify`` holds the rules,
``query`` turns messages into queries, ``output`` writes the file. See ``docs/mining.md``.
"""
