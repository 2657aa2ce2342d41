"""A real Selenium Grid 4 on 127.0.0.1: the standalone server, or a hub with two nodes.

The server jar comes from `scripts/setup.sh --tests` (npm package @nightwatch/selenium-server,
kept in .venv/selenium/), Java and ChromeDriver from Debian. Each process is started here
and stopped by its PID. The fixtures themselves are in tests/grid/_fixtures.py, registered
once by tests/conftest.py so every directory that uses a grid shares the same one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
JAR = Path(os.environ.get("CDPKIT_SELENIUM_JAR", REPO / ".venv" / "selenium" / "selenium-server.jar"))
# Chrome runs as root here (CI and this machine): without --no-sandbox it exits at once.
NODE_ARGS = ["--no-sandbox"] if os.geteuid() == 0 else []


def grid_status(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/status", timeout=5) as response:
        status: dict[str, Any] = json.loads(response.read())["value"]
        return status


def queued_requests(url: str) -> int:
    """New-session requests waiting at the grid (its GraphQL endpoint)."""
    query = json.dumps({"query": "{ grid { sessionQueueSize } }"}).encode()
    request = urllib.request.Request(
        f"{url}/graphql", data=query, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return int(json.loads(response.read())["data"]["grid"]["sessionQueueSize"])


def busy_slots(url: str) -> int:
    return sum(
        1 for node in grid_status(url)["nodes"] for slot in node["slots"] if slot["session"]
    )


def wait_until(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


class GridProcesses:
    """Java processes of one grid, each in its own process group; stopped by PID."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, *args: str) -> None:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        self.processes.append(
            subprocess.Popen(
                ["java", "-jar", str(JAR), *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def output(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
            for path in sorted(self.logs.glob("*.log"))
        )


def _require_components() -> None:
    if shutil.which("java") is None or shutil.which("chromedriver") is None:
        pytest.skip(
            "SELENIUM GRID TESTS NOT RUN: Java or ChromeDriver is missing; "
            "`bash scripts/setup.sh --tests` installs openjdk-17-jre-headless and chromium-driver"
        )
    if not JAR.is_file():
        pytest.fail(f"No Selenium server jar at {JAR}: run `bash scripts/setup.sh --tests`")


def _wait_ready(url: str, grid: GridProcesses, nodes: int) -> None:
    def ready() -> bool:
        status = grid_status(url)
        return bool(status["ready"]) and len(status.get("nodes", [])) >= nodes

    try:
        wait_until(ready, 90, f"the grid at {url} to be ready with {nodes} node(s)")
    except AssertionError as exc:
        grid.stop()
        raise AssertionError(f"{exc}\n{grid.output()}") from None
