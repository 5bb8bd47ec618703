"""Derived: index.md and the machine cache, rebuilt and kept current from the records. Stores what the text layer produces; knows nothing of scoring."""
