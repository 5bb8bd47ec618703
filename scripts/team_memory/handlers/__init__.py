"""One module per hook event, each ``handle(payload) -> output`` (None, text or a JSON-ready dict).

``hooks/launch.py`` runs the one for its event through ``records.hookio.run_hook``, the fail-open
boundary (stdin read loosely, output printed once, any problem one stderr line and exit 0). A handler
imports only what its event needs, and the heavy parts only when the payload calls for them.
"""
