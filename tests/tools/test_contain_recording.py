"""What a recording writes (issue 41, "Policy and recording"): a password typed key by key
never reaches the script, and any file name the recording accepts gives a script that
compiles and replays. Recorded with ``cdpkit.record``; replayed as a user does, ``python
FILE`` in a fresh process with its own runtime, state, cache and config folders."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

import cdpkit
from cdpkit import tools
from tests.server import FixtureServer

ROOT = Path(__file__).parent.parent.parent

PASSWORD = "s3cR! x"
# The keys typing PASSWORD, in the spellings press_key takes: characters, code names,
# a shifted code name and a key name.
KEYS = ["s", "Digit3", "KeyC", "Shift+KeyR", "!", "Space", "x"]

LOGIN = f"""<!doctype html><title>Login</title>
<label>User <input id="u"></label>
<label>Password <input type="password" id="p"
  oninput="document.getElementById('out').textContent =
    this.value === {PASSWORD!r} ? 'the password is right' : 'typed ' + this.value.length"></label>
<p id="out"></p>"""

# The fields are in a closed shadow root: the page's scripts cannot see inside it, nor the
# recorder's own (document.activeElement is the host). Placed where a click by
# coordinates finds them (nothing else in the page's document leads to them).
CLOSED_LOGIN = f"""<!doctype html><title>Closed login</title>
<div id="host"></div><p id="out"></p>
<script>
const root = document.getElementById('host').attachShadow({{mode: 'closed'}});
root.innerHTML = `<style>input {{ position: absolute; left: 20px; width: 200px; height: 24px;
  margin: 0; }}</style>
  <input type="password" id="p" style="top: 20px"> <input type="password" id="r"
  style="top: 80px"> <input id="n" style="top: 140px">`;
const out = document.getElementById('out');
const check = () => {{
  const [p, r, n] = ['p', 'r', 'n'].map((id) => root.getElementById(id).value);
  out.textContent = p === {PASSWORD!r} && r === {PASSWORD!r} ? 'both are right'
    : n ? 'name: ' + n : 'typed ' + p.length + ' and ' + r.length;
}};
root.addEventListener('input', check);
</script>"""
# Where a click focuses each field of CLOSED_LOGIN.
PASSWORD_AT, REPEAT_AT, NAME_AT = (120, 32), (120, 92), (120, 152)

# A password field in an <object> showing a document of another origin (a data: URL's is
# opaque): the page cannot read it; the field reports what it holds by message.
FIELD = (
    "<body onload='parent.postMessage(&quot;ready&quot;, &quot;*&quot;)'>"
    "<input type=password style='position: absolute; left: 10px; top: 10px'"
    " oninput='parent.postMessage(&quot;typed &quot; + this.value.length, &quot;*&quot;)'>"
)
EMBEDDED_LOGIN = f"""<!doctype html><title>Embedded login</title>
<object type="text/html" data="data:text/html,{FIELD}"
  style="position: absolute; left: 0; top: 0; width: 300px; height: 80px"></object>
<p id="out" style="margin-top: 120px"></p>
<script>
addEventListener('message', (event) => {{
  document.getElementById('out').textContent = 'field: ' + event.data; }});
</script>"""

PANEL = """<!doctype html><title>Panel</title>
<button onclick="document.getElementById('out').textContent = 'pressed'">Press me</button>
<p id="out"></p>"""


@pytest.fixture(autouse=True)
def pages(server: FixtureServer) -> None:
    server.route("/contain/login", lambda h: h.reply(200, LOGIN))
    server.route("/contain/panel", lambda h: h.reply(200, PANEL))
    server.route("/contain/closed-login", lambda h: h.reply(200, CLOSED_LOGIN))
    server.route("/contain/embedded-login", lambda h: h.reply(200, EMBEDDED_LOGIN))


async def replay(path: Path, home: Path, **env: str) -> tuple[int, str]:
    """``python FILE`` with folders of its own and no daemon: its exit status and output."""
    isolated = {k: v for k, v in os.environ.items() if not k.startswith(("CDPKIT_", "XDG_"))}
    for name in ("runtime", "state", "cache", "config", "data"):
        (home / name).mkdir(parents=True, exist_ok=True)
    (home / "runtime").chmod(0o700)
    isolated.update(
        PYTHONPATH=str(ROOT),
        XDG_RUNTIME_DIR=str(home / "runtime"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        CDPKIT_NO_DAEMON="1",
        **env,
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(path), cwd=home, env=isolated,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, output.decode()


async def test_a_password_typed_key_by_key_never_reaches_the_recording(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    path = tmp_path / "login.py"
    await tools.navigate(page, server.url("/contain/login"))
    async with cdpkit.record(page, path):
        await tools.click(page, label="User")
        await tools.press_key(page, "a")  # not a password field: written as it is
        await tools.click(page, label="Password")
        for key in KEYS:
            await tools.press_key(page, key)
        await tools.wait_for(page, text="the password is right")
        await tools.press_key(page, "Tab")
    script = path.read_text()
    pressed = re.findall(r"tools\.press_key\(page, (.*?)\)\n", script)
    assert pressed == ['"a"', '"Tab"'], script  # no key of the password, in any spelling
    assert PASSWORD not in script and "s3cR" not in script
    assert 'secret("CDPKIT_SECRET_1")' in script
    status, output = await replay(path, tmp_path / "home", CDPKIT_SECRET_1=PASSWORD)
    assert status == 0, output  # the page got the password again: its wait passed
    status, output = await replay(path, tmp_path / "home", CDPKIT_SECRET_1="wrong")
    assert status != 0 and "the password is right" in output, output


async def test_a_password_in_a_closed_shadow_root_never_reaches_the_recording(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    """Typed key by key and whole (type_text) into password fields the page's scripts
    cannot reach: the recorder reads the focus through the closed root."""
    path = tmp_path / "closed.py"
    await tools.navigate(page, server.url("/contain/closed-login"))
    async with cdpkit.record(page, path):
        await tools.click(page, x=PASSWORD_AT[0], y=PASSWORD_AT[1])
        for key in KEYS:
            await tools.press_key(page, key)
        await tools.click(page, x=REPEAT_AT[0], y=REPEAT_AT[1])
        await tools.type_text(page, PASSWORD)
        await tools.wait_for(page, text="both are right")
    script = path.read_text()
    compile(script, str(path), "exec")
    assert re.findall(r"tools\.press_key\(page, (.*?)\)\n", script) == [], script
    assert PASSWORD not in script and "s3cR" not in script, script
    assert 'secret("CDPKIT_SECRET_1")' in script and 'secret("CDPKIT_SECRET_2")' in script
    secrets = {"CDPKIT_SECRET_1": PASSWORD, "CDPKIT_SECRET_2": PASSWORD}
    status, output = await replay(path, tmp_path / "home", **secrets)
    assert status == 0, output  # both fields got the password again: the wait passed


async def test_a_text_field_in_a_closed_shadow_root_is_still_recorded(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    """Not a password field: what is typed there is written as it is (the check sees
    which field of the closed root has the focus; it does not hide all of them)."""
    path = tmp_path / "name.py"
    await tools.navigate(page, server.url("/contain/closed-login"))
    async with cdpkit.record(page, path):
        await tools.click(page, x=NAME_AT[0], y=NAME_AT[1])
        await tools.type_text(page, "Ada")
        await tools.press_key(page, "b")
        await tools.wait_for(page, text="name: Adab")
    script = path.read_text()
    compile(script, str(path), "exec")
    assert 'tools.type_text(page, "Ada")' in script, script
    assert 'tools.press_key(page, "b")' in script, script
    assert "secret(" not in script, script
    status, output = await replay(path, tmp_path / "home")
    assert status == 0, output


async def test_a_password_in_an_object_of_another_origin_never_reaches_the_recording(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    """Focus inside an <object> the page cannot read counts as a password field, as focus
    in another origin's iframe does."""
    path = tmp_path / "embedded.py"
    await tools.navigate(page, server.url("/contain/embedded-login"))
    await tools.wait_for(page, text="field: ready")  # the object's document is there
    async with cdpkit.record(page, path):
        await tools.click(page, x=40, y=20)
        for key in KEYS:
            await tools.press_key(page, key)
        await tools.type_text(page, PASSWORD)
        await tools.wait_for(page, text=f"field: typed {2 * len(PASSWORD)}")
    script = path.read_text()
    compile(script, str(path), "exec")
    assert re.findall(r"tools\.press_key\(page, (.*?)\)\n", script) == [], script
    assert PASSWORD not in script and "s3cR" not in script, script
    assert 'secret("CDPKIT_SECRET_2")' in script, script


NAMES = [
    'three """ quotes.py',
    "back\\slash \\N{x} \\u12.py",
    "new\nline.py",
    "right-to-left \u202eyp.py",
    'ends in a quote"',
    "single ''' quotes.py",
]


@pytest.mark.parametrize(
    "name", NAMES, ids=["quotes", "backslash", "newline", "rlo", "end-quote", "single"]
)
async def test_any_file_name_gives_a_script_that_compiles_and_replays(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    await tools.navigate(page, server.url("/contain/panel"))
    async with cdpkit.record(page, path):
        await tools.click(page, role="button", name="Press me")
        await tools.wait_for(page, text="pressed")
    script = path.read_text()
    compile(script, str(path), "exec")  # a SyntaxError here is the bug
    assert "\u202e" not in script  # shown escaped: no reordering of what a reader sees
    status, output = await replay(path, tmp_path / "home")
    assert status == 0, output


async def test_a_line_break_in_what_a_step_quotes_stays_in_its_comment(
    page: cdpkit.Page, server: FixtureServer, tmp_path: Path
) -> None:
    """A step's comment quotes its locator (text the agent or the page gave): a line break
    in it must not end the comment and turn the rest into code."""
    path = tmp_path / "quoted.py"
    await tools.navigate(page, server.url("/contain/panel"))
    async with cdpkit.record(page, path):
        await tools.click(page, text="Press\nme")
        await tools.wait_for(page, text="pressed")
    script = path.read_text()
    compile(script, str(path), "exec")
    status, output = await replay(path, tmp_path / "home")
    assert status == 0, output
