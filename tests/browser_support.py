"""Headless Chromium for the ``view`` page's tests and benchmark: the real browser, no driver package.

``require_chromium()`` is the one gate: it returns the browser's path, or skips the test with a
reason, or, under ``TEAM_MEMORY_REQUIRE_E2E=1`` (``.ci/run``), fails it. ``dump_dom(url)`` runs
the page (scripts on, ``--virtual-time-budget``) and returns the DOM as the script left it;
``screenshot(url, png)``; ``Browser`` speaks the DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages ending in NUL on fds 3 and 4) to type into the page
and time it.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

from e2e_support import REQUIRE_ENV, required

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars")
INSTALL_HINT = "install it with: apt-get install -y chromium chromium-driver"


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


def require_chromium() -> str:
    import pytest
    found = chromium()
    if found is None:
        reason = f"headless Chromium is not installed ({INSTALL_HINT})"
        if required():
            pytest.fail(f"{REQUIRE_ENV}=1 and {reason}", pytrace=False)
        pytest.skip(reason)
    return found


def _run(args: list, timeout: float) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="tm-chromium-") as profile:
        return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                              text=True, timeout=timeout)


def dump_dom(url: str, budget_ms: int = 5000, timeout: float = 120) -> str:
    """The page's DOM after its scripts ran (``url`` may carry a ``#fragment``)."""
    proc = _run([f"--virtual-time-budget={budget_ms}", "--dump-dom", url], timeout)
    assert proc.returncode == 0 and "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def screenshot(url: str, png: str, size: str = "1280,900", timeout: float = 120) -> None:
    proc = _run([f"--window-size={size}", "--virtual-time-budget=3000", f"--screenshot={png}", url], timeout)
    assert proc.returncode == 0 and os.path.exists(png), proc.stderr[-2000:]


class Browser:
    """One headless Chromium driven over the DevTools pipe: ``open(url)``, ``eval(js)``, ``type(text)``."""

    def __init__(self, timeout: float = 120.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="tm-chromium-")
        to_browser, self._w = os.pipe()
        self._r, from_browser = os.pipe()
        # the browser reads fd 3 and writes fd 4: move our ends out of the way first
        a, b = fcntl.fcntl(to_browser, fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(from_browser, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser), os.close(from_browser)
        devnull = os.open(os.devnull, os.O_RDWR)
        args = [chromium(), *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
                "--window-size=1280,900", "about:blank"]
        self.pid = os.posix_spawn(args[0], args, dict(os.environ), file_actions=[
            (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2),
            (os.POSIX_SPAWN_DUP2, a, 3), (os.POSIX_SPAWN_DUP2, b, 4)])
        os.close(a), os.close(b), os.close(devnull)
        self._buf, self._id, self.events, self.session = b"", 0, [], None
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Performance"):
            self.send(f"{domain}.enable")

    def _read(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buf += chunk
        message, self._buf = self._buf.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._w, json.dumps(message).encode() + b"\0")
        while True:
            got = self._read()
            if got.get("id") == self._id:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                return got.get("result", {})
            self.events.append(got)

    def eval(self, expression: str):
        got = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in got:
            raise RuntimeError(str(got["exceptionDetails"])[:1000])
        return got["result"].get("value")

    def open(self, url: str) -> float:
        """Load ``url`` and wait until the page's script is ready; seconds taken (wall clock)."""
        start = time.perf_counter()
        self.send("Page.navigate", {"url": url})
        while self.eval("document.readyState === 'complete' && document.documentElement.dataset.ready === '1'") \
                is not True:
            if time.perf_counter() - start > self.timeout:
                raise TimeoutError(f"{url} never became ready")
            time.sleep(0.01)
        return time.perf_counter() - start

    def screenshot(self, png: str, width: int = 1280, height: int = 900) -> None:
        """The page as it is now, ``width`` x ``height`` CSS pixels, into ``png``."""
        import base64
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})
        self.frame()
        self.frame()
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(png, "wb") as f:
            f.write(base64.b64decode(data))

    def busy(self) -> float:
        """Seconds the page's main thread has spent on tasks so far (``Performance.getMetrics``)."""
        metrics = {m["name"]: m["value"] for m in self.send("Performance.getMetrics")["metrics"]}
        return metrics["TaskDuration"]

    def frame(self) -> None:
        """Wait until the next frame is laid out."""
        self.eval("new Promise(r => requestAnimationFrame(() => { document.body.offsetHeight; setTimeout(r, 0); }))")

    def type(self, text: str) -> list:
        """Type ``text`` into the focused element, one key at a time; per key ``(wall, main-thread)`` seconds,
        each from the key to the next frame laid out."""
        out = []
        for ch in text:
            busy, start = self.busy(), time.perf_counter()
            self.send("Input.insertText", {"text": ch})
            self.frame()
            out.append((time.perf_counter() - start, self.busy() - busy))
        return out

    def close(self) -> None:
        try:
            os.close(self._w)
            os.close(self._r)
        finally:
            try:
                os.kill(self.pid, 15)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
