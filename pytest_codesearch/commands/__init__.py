"""Every ``pytest --codesearch-X`` that runs no case: validate, generate, convert, history, merge."""
