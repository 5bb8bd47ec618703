"""Records: one memory file at a time (find, read, validate, hide secrets). Knows nothing of index.md, the cache, ranking or hooks."""
