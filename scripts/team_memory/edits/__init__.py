"""Edits: writing records (create, update, retire, purge, edit, export/import) under the store lock, keeping the derived files in step."""
