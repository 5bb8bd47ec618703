"""Base: names, configuration, safe file access, the character policy. Imports nothing else of the package."""
