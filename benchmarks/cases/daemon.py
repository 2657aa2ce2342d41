"""``cdpkit screenshot`` of a local page as a person runs it, one command in a fresh process,
wall clock: without a daemon (the "raw" column: the command launches its own Chrome) and
with a warm ``cdpkit daemon`` (the "cdpkit" column), in the same run, interleaved.

Each measuring process starts a daemon of its own (a private ``XDG_RUNTIME_DIR``), warms
it with one screenshot, lets it idle a second (as between a person's commands), times the
command, and stops it; the raw side times the same
command with ``--no-daemon``. Both run ``--wait 0``: the page is static, and the smart
wait is the same on both sides.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.cases.base import Case, Ctx, Metric, Target
from benchmarks.common import now

REPO = Path(__file__).resolve().parents[2]
# Seconds between the warming command and the timed one (the daemon opens the next
# command's tab ahead once a command ends).
_BETWEEN_COMMANDS = 1.0


def _env(ctx: Ctx, runtime: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("CDPKIT_")}
    env.update(XDG_RUNTIME_DIR=runtime, CDPKIT_CHROME=ctx.chrome)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _cdpkit(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "cdpkit", *args], env=env, capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"cdpkit {args[0]} failed: {done.stderr.strip()}")


async def _one_shot(ctx: Ctx, *, warm_daemon: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="cdpkit-bench-") as folder:
        os.chmod(folder, 0o700)
        env = _env(ctx, folder)
        shot = ["screenshot", f"{ctx.base_url}/article", "--wait", "0", "-o",
                str(Path(folder, "shot.png"))]  # fmt: skip
        if warm_daemon:
            _cdpkit(env, "daemon", "start")
            _cdpkit(env, *shot)  # the daemon's browser starts on the first command
            # A daemon between a person's commands: idle a moment, its spare tab ready.
            await asyncio.sleep(_BETWEEN_COMMANDS)
        else:
            shot.append("--no-daemon")
        try:
            start = now()
            await asyncio.to_thread(_cdpkit, env, *shot)
            return {"s": now() - start}
        finally:
            if warm_daemon:
                _cdpkit(env, "daemon", "stop")


async def _without_daemon(ctx: Ctx) -> dict[str, float]:
    return await _one_shot(ctx, warm_daemon=False)


async def _with_daemon(ctx: Ctx) -> dict[str, float]:
    return await _one_shot(ctx, warm_daemon=True)


DAEMON_SCREENSHOT = Case(
    name="daemon_screenshot",
    metrics=(Metric("s", "one-shot `cdpkit screenshot`, wall (s)", Target(abs_max=0.4)),),
    sides={"raw": _without_daemon, "cdpkit": _with_daemon},
    needs=(),
    repeat=2,
    notes=("daemon_screenshot: a one-shot `cdpkit screenshot URL --wait 0` in a fresh process, "
           "wall clock; raw: `--no-daemon` (it launches its own Chrome); cdpkit: with a warm "
           "`cdpkit daemon` (started and warmed by one command, then idle 1 s, before the clock).",),
)

CASES = (DAEMON_SCREENSHOT,)
