#!/usr/bin/env python3
"""Write templates/schemas/<category>.schema.json from the validator's field specs."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from team_memory.records.recordspec import write_schemas  # noqa: E402

if __name__ == "__main__":
    for path in write_schemas():
        print(path)
