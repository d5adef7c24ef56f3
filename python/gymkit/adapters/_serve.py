"""Starts ``gym serve`` for a trainer whose inference servers only exist once training has begun.

Both trainer adapters need the same thing the upstream integrations get from NeMo Gym's
``RunHelper.start``: environment servers whose policy model points at the trainer's own engines
(verl's rollout replicas, NeMo RL's vLLM HTTP servers), whose weights the trainer updates. Here that
is one ``gym serve`` child process: the adapter appends ``--port 0``, the engines' base URLs and the
served model name to the user's arguments, waits for the ``rollout service: URL`` line, and stops the
whole process group when asked (or when the interpreter exits).

Standard library only.
"""

from __future__ import annotations

import atexit
import os
import re
import signal
import subprocess
import threading
from typing import List, Optional, Sequence

__all__ = ["GymServe", "GymServeError", "policy_url_args"]

_URL_LINE = re.compile(r"rollout service: (https?://\S+?)/v1/rollouts")


class GymServeError(RuntimeError):
    """``gym serve`` exited or never printed its address; the message carries its last output."""


def policy_url_args(base_urls: Sequence[str], model_name: Optional[str]) -> List[str]:
    """The ``gym serve`` arguments that point the policy model at ``base_urls`` (each ending in /v1).

    One URL is ``--model-url``; several become the replica list ``++policy_base_url=[a,b]``.
    """
    urls = [u.rstrip("/") for u in base_urls]
    if not urls:
        raise ValueError("no inference server URL to point gym serve at")
    args = ["--model-url", urls[0]] if len(urls) == 1 else [f"++policy_base_url=[{','.join(urls)}]"]
    if model_name:
        args += ["--model", model_name]
    return args


class GymServe:
    """A running ``gym serve``: ``url`` is its rollout service; ``stop()`` ends it."""

    def __init__(self, command: Sequence[str], args: Sequence[str], *, ready_timeout_s: float = 600.0, cwd: Optional[str] = None) -> None:
        argv = list(command) + ["serve", "--port", "0"] + list(args)
        self.argv = argv
        self._process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self._lines: List[str] = []
        found = threading.Event()
        self.url: str = ""

        def read() -> None:
            assert self._process.stdout is not None
            for line in self._process.stdout:
                self._lines.append(line.rstrip("\n"))
                del self._lines[:-40]
                match = _URL_LINE.search(line)
                if match and not self.url:
                    self.url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, name="gym-serve-output", daemon=True).start()
        atexit.register(self.stop)
        if not found.wait(ready_timeout_s) or not self.url:
            self.stop()
            tail = "\n".join(self._lines[-20:])
            raise GymServeError(f"gym serve did not start ({' '.join(argv)}); its last output:\n{tail}")

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def output(self) -> str:
        """The last lines gym serve printed."""
        return "\n".join(self._lines)

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGTERM to gym serve's process group, SIGKILL after ``grace_s``."""
        if self._process.poll() is not None:
            return
        try:
            os.killpg(self._process.pid, signal.SIGTERM)
            self._process.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
        except ProcessLookupError:
            pass
