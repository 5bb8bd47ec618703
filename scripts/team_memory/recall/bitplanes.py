"""``matching.score_index``'s upper bound: every entry's best possible score, added up as bit planes.

Each prompt token's options (a bitmap of the entries it reaches, or their ids) add whole units of
``QUANTUM``, rounded up, to every entry they reach; plane k holds bit k of every entry's sum, so adding to
a thousand entries is a few whole-int operations. Only the ids ``reaching`` a floor are scored exactly.
"""
from __future__ import annotations

from ..derived.cache import bits_of, ids_of_bits
from .weights import BODY_COVERAGE_MAX

QUANTUM = 0.01  # the bound's unit
# options filed under few entries are merged per value rounded up to one of these units: a token has few groups
LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _add(planes: list, bits: int, units: int) -> None:
    """Add ``units`` to the number of every entry in ``bits`` (plane k: bit k of every entry's number)."""
    k = 0
    while units:
        if units & 1:
            carry, j = bits, k
            while carry:
                if j >= len(planes):
                    planes += [0] * (j - len(planes)) + [carry]
                    break
                plane = planes[j]
                planes[j] = plane ^ carry
                carry &= plane
                j += 1
        units >>= 1
        k += 1


def top(planes: list) -> int:
    """A bitmap of the entries holding the largest number."""
    found = -1  # every entry, narrowed plane by plane from the highest
    for plane in reversed(planes):
        found = found & plane or found
    return max(found, 0)


def _at_least(planes: list, threshold: int) -> int:
    """A bitmap of the entries whose number is ``threshold`` (>= 1) or more."""
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


def bound(per_token: list, size: int) -> list:
    """Every entry's rounded-up bound as bit planes (a body option at ``1 + BODY_COVERAGE_MAX`` x its points)."""
    planes: list = []
    for _, _, options in per_token:
        groups: dict = {}  # units -> [bitmap, sparse ids]
        for option in options:
            members = option.members
            points = option.points * (1.0 + BODY_COVERAGE_MAX) if option.field == "body" else option.points
            units = int(points / QUANTUM * (1.0 + 1e-9)) + 1  # rounded up: strictly above, whatever the float error
            if members.bits is not None:
                groups.setdefault(units, [0, []])[0] |= members.bits
            else:
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
                _add(planes, fresh, units)
    return planes


def reaching(planes: list, floor: float) -> list:
    """The ids whose rounded-up bound reaches ``floor`` (every id whose exact bound does, and maybe more)."""
    return ids_of_bits(_at_least(planes, max(1, int(floor / QUANTUM))))
