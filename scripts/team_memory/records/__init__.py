"""Records: one memory file at a time (find, read, validate, hide secrets), and a hook's input and output. Knows nothing of index.md, the cache or ranking."""
