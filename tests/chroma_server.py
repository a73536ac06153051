"""Start a real Chroma server on a free loopback port for a test, and stop it afterwards."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    command: Sequence[str], port: int, env: dict[str, str] | None = None, wait: float = 60
) -> Iterator[str]:
    """Run `command` (a Chroma server on `port`) until the block ends; yield its URL.

    Raises:
        RuntimeError: the server did not answer its heartbeat within `wait` seconds.
    """
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: uvicorn logs every request
        yield from _run(command, port, env, log, wait)


def _run(
    command: Sequence[str], port: int, env: dict[str, str] | None, log: IO[bytes], wait: float
) -> Iterator[str]:
    proc = subprocess.Popen(
        list(command), stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                err = log.read().decode(errors="replace")[-800:]
                raise RuntimeError(f"{command[0]} did not come up on {url} in {wait:g} s: {err}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
