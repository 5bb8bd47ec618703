"""Tool use: one hook event's answer composed from layers that know nothing of each other (the store guard and recall by file)."""
