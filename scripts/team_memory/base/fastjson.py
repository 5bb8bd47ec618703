"""``loads``/``dumps`` through ``json``'s C scanner and encoder without importing ``json`` (it pulls in ``re``)."""
from __future__ import annotations

# Kept for the tool hooks' budget (<= 2.0x ``python3 -S -c pass``): ``import json`` costs them about 10 ms (1.2x).
_WS = " \t\n\r"


def _constant(name):
    return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


def _default(value):
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


try:
    import _json

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = staticmethod(_constant)
        memo: dict = {}

    _scan = _json.make_scanner(_Context())
    _encoder = _json.make_encoder
except (ImportError, AttributeError, TypeError):  # pragma: no cover - no C accelerator
    _scan = _encoder = None


def loads(text):
    """Parse one JSON document from ``str`` (or UTF-8 ``bytes``); ``ValueError`` if it is not one."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if _scan is None:  # pragma: no cover
        import json
        return json.loads(text)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("not a JSON document") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError:
        raise
    except Exception:  # noqa: BLE001 - without ``json`` loaded, the C scanner cannot build its error
        raise ValueError("not valid JSON") from None
    if text[end:].strip(_WS):
        raise ValueError("extra data after the JSON document")
    return value


def dumps(value) -> str:
    """``json.dumps(value, separators=(",", ":"))``: compact, ASCII-only (a lone surrogate stays encodable)."""
    if _encoder is None:  # pragma: no cover
        import json
        return json.dumps(value, separators=(",", ":"))
    encode = _encoder({}, _default, _json.encode_basestring_ascii, None, ":", ",", False, False, True)
    return "".join(encode(value, 0))
