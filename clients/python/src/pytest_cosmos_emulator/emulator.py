"""Starting and stopping the cosmos-emulator binary."""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Optional, Sequence

#: The emulator's well-known master key (the same as Microsoft's emulators).
EMULATOR_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="


class EmulatorError(RuntimeError):
    """The emulator could not be found, did not start, or did not become healthy."""


@dataclass
class Emulator:
    """A running emulator: its endpoint (ends with "/"), key, and the process when this library
    started it (None for an emulator named by URL)."""

    endpoint: str
    key: str = EMULATOR_KEY
    process: Optional[subprocess.Popen] = None
    log_path: Optional[str] = None
    _log: Optional[object] = field(default=None, repr=False)

    @property
    def protocol(self) -> str:
        return self.endpoint.split(":", 1)[0]

    def client(self, **kwargs):
        """A ready azure.cosmos.CosmosClient for this emulator (certificate checks off for https:
        the emulator's certificate is self-signed)."""
        from azure.cosmos import CosmosClient

        if self.protocol == "https":
            kwargs.setdefault("connection_verify", False)
        return CosmosClient(self.endpoint, credential=self.key, **kwargs)

    def healthy(self) -> bool:
        return _healthy(self.endpoint)

    def stop(self, timeout: float = 30) -> None:
        """Stops an emulator this library started (SIGTERM, then SIGKILL after timeout); the
        emulator removes its ephemeral PostgreSQL on the way out. A no-op for one given by URL."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "Emulator":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _healthy(endpoint: str) -> bool:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(endpoint + "_emulator/health", timeout=2, context=ctx) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_binary(binary: Optional[str] = None) -> str:
    """The emulator binary: `binary`, else $COSMOS_EMULATOR_BIN, else `cosmos-emulator` on PATH."""
    name = binary or os.environ.get("COSMOS_EMULATOR_BIN") or "cosmos-emulator"
    path = name if os.sep in name else shutil.which(name)
    if not path or not os.access(path, os.X_OK):
        raise EmulatorError(
            f"cosmos-emulator binary not found ({name!r}): set COSMOS_EMULATOR_BIN, put it on PATH "
            "(go install github.com/cosmos-emulator/cosmos-emulator/cmd/cosmos-emulator@latest), "
            "or set COSMOS_EMULATOR_URL to use a running emulator")
    return path


def start_emulator(binary: Optional[str] = None, args: Sequence[str] = (), protocol: str = "http",
                   timeout: float = 180, port: Optional[int] = None) -> Emulator:
    """Starts the binary with --ephemeral on a free port of 127.0.0.1 (plain http by default; its
    PostgreSQL lives in a temporary directory removed at stop) and waits until
    GET /_emulator/health answers 200. The emulator's output goes to a log file (Emulator.log_path),
    whose tail an EmulatorError quotes."""
    path = find_binary(binary)
    last = None
    for _ in range(3):  # a port taken between choosing it and the bind: try another
        p = port or _free_port()
        endpoint = f"{protocol}://127.0.0.1:{p}/"
        log = tempfile.NamedTemporaryFile(prefix="cosmos-emulator-", suffix=".log", delete=False)
        cmd = [path, "--ephemeral", "--addr", f"127.0.0.1:{p}", "--protocol", protocol,
               "--health-port", "0", "--explorer-port", "0", *args]
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        emu = Emulator(endpoint=endpoint, process=proc, log_path=log.name, _log=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            if emu.healthy():
                return emu
            time.sleep(0.2)
        emu.stop()
        with open(log.name, encoding="utf-8", errors="replace") as f:
            last = f.read()[-3000:]
        if "address already in use" not in last or port:
            break
    raise EmulatorError(f"cosmos-emulator did not become healthy ({' '.join(cmd)}); its log ends:\n{last}")
