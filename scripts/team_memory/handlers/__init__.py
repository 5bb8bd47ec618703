"""One module per hook event, each ``handle(payload) -> output`` (None, text or a JSON-ready dict), run by
``hooks/launch.py`` through ``records.hookio.run_hook``; each imports only what its event needs."""
