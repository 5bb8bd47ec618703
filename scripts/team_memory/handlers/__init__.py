"""Handlers: one module per hook event, ``handle(payload) -> output``, each importing only what its event needs."""
