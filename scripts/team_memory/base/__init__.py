"""Base: names, configuration, safe file access, the character policy, hook I/O. Imports nothing else of the package."""
