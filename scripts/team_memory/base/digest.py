"""SHA-256 without ``hashlib``, which loads OpenSSL first (a few ms a process): CPython's own C SHA-256,
``_sha2`` (3.12+) or ``_sha256``; other Pythons get ``hashlib``. The digests are the same.
"""
from __future__ import annotations

# Kept for the prompt hook's budget (<= 3.0x): ``hashlib`` measured +0.4x on it (3.1x -> 3.5x, bench.py --hooks).
try:
    from _sha2 import sha256
except ImportError:
    try:
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - other Pythons
        from hashlib import sha256


def sha256_hex(data: bytes) -> str:
    return sha256(data).hexdigest()
