"""``matching.score_index``'s upper bound: every entry's best possible score, added up as bit planes.

Each prompt token's options (a bitmap of the entries it reaches, or their ids) add whole
units of ``QUANTUM``, rounded up, to every entry they reach; plane k holds bit k of every
entry's sum, so adding to a thousand entries is a few whole-int operations. ``reaching``
gives the ids whose bound reaches a floor: only those are scored exactly.
"""
from __future__ import annotations

from ..derived.cache import bits_of, ids_of_bits
from .weights import BODY_COVERAGE_MAX

QUANTUM = 0.01  # the bound's unit
# Options filed under few entries are merged per rounded value; the value is first rounded
# up to one of these (in units), so a token has few such groups.
LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _units(points: float) -> int:
    """``points`` in whole units, rounded up (strictly above, whatever the float error)."""
    return int(points / QUANTUM * (1.0 + 1e-9)) + 1


class _Planes:
    """Non-negative whole numbers per entry, as bit planes (plane k: bit k of every entry's number)."""

    def __init__(self):
        self.planes: list = []

    def add(self, bits: int, units: int) -> None:
        """Add ``units`` to every entry in ``bits``."""
        planes = self.planes
        k = 0
        while units:
            if units & 1:
                carry, j = bits, k
                while carry:
                    if j >= len(planes):
                        planes.extend([0] * (j - len(planes)))
                        planes.append(carry)
                        break
                    plane = planes[j]
                    planes[j] = plane ^ carry
                    carry &= plane
                    j += 1
            units >>= 1
            k += 1

    def top(self) -> int:
        """A bitmap of the entries holding the largest number."""
        found = None
        for plane in reversed(self.planes):
            both = plane if found is None else found & plane
            if both:
                found = both
        return found or 0

    def at_least(self, threshold: int) -> int:
        """A bitmap of the entries whose number is ``threshold`` (>= 1) or more."""
        planes = self.planes
        if threshold >> len(planes):
            return 0
        greater, equal = 0, -1
        for k in range(len(planes) - 1, -1, -1):
            plane = planes[k]
            if threshold >> k & 1:
                equal &= plane
            else:
                greater |= equal & plane
                equal &= ~plane
        return greater | equal


def bound(per_token: list, size: int) -> _Planes:
    """Every entry's rounded-up bound as bit planes (a body option at ``1 + BODY_COVERAGE_MAX`` x its points)."""
    planes = _Planes()
    for _, _, options in per_token:
        groups: dict = {}  # units -> [bitmap, sparse ids]
        for option in options:
            members = option.members
            points = option.points * (1.0 + BODY_COVERAGE_MAX) if option.field == "body" else option.points
            if members.bits is not None:
                units = _units(points)
                slot = groups.setdefault(units, [0, []])
                slot[0] |= members.bits
            else:
                units = _units(points)
                units = next((step for step in LADDER if step >= units), units)
                groups.setdefault(units, [0, []])[1].extend(members.ids)
        seen = 0
        for units in sorted(groups, reverse=True):
            bits, ids = groups[units]
            if ids:
                bits |= bits_of(ids, size)
            fresh = bits & ~seen if seen else bits
            seen |= bits
            if fresh:
                planes.add(fresh, units)
    return planes


def reaching(planes: _Planes, floor: float) -> list:
    """The ids whose rounded-up bound reaches ``floor`` (every id whose exact bound does, and maybe more)."""
    return ids_of_bits(planes.at_least(max(1, int(floor / QUANTUM))))
