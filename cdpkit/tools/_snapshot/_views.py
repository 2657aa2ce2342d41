"""What a snapshot shows of the outline it built: within a character budget (whole
subtrees cut, each leaving one line that says how to see it), or only what changed since
the previous snapshot (``diff=True``).

Both work on the outline's lines and their nodes (``lines[i]`` is the line of
``nodes[i]``, indented two spaces per ``depth``); neither talks to the browser.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._outline_model import SnapshotCut, SnapshotNode

__all__ = ["diff_lines", "fit_budget", "fit_lines"]

UNCHANGED = "unchanged"


def _hint(count: int, index: int) -> str:
    return f" … ({count} more lines cut; snapshot(index={index}) to see them)"


def _tail_note(count: int) -> str:
    return f"… ({count} more lines cut; a larger max_chars or a scope shows them)"


def fit_budget(
    lines: Sequence[str], nodes: Sequence[SnapshotNode], max_chars: int
) -> tuple[list[str], list[SnapshotNode], list[SnapshotCut]]:
    """The lines to show within ``max_chars`` characters (newlines included), the nodes
    of those lines, and what was cut.

    The outline stays an outline: a node is shown whole or collapsed to its own line
    plus a hint, and a collapsed node's subtree is hidden. Nodes open in document order
    (each first shown collapsed, then opened when its children's lines fit), so what is
    cut is the later and larger subtrees, and nothing is ever cut mid-line. When even the
    top lines do not fit, the first of them are kept and one note counts the rest; when
    not one line fits, nothing is shown.
    """
    count = len(lines)
    if sum(map(len, lines)) + count - 1 <= max_chars:
        return list(lines), list(nodes), []
    depths = [node.depth for node in nodes]
    # end[i]: one past the last line of i's subtree.
    end, open_stack = [count] * count, list[int]()
    for i, depth in enumerate(depths):
        while open_stack and depths[open_stack[-1]] >= depth:
            end[open_stack.pop()] = i
        open_stack.append(i)

    def collapsed_cost(i: int) -> int:  # the line as shown collapsed, with its newline
        hidden = end[i] - i - 1
        return len(lines[i]) + 1 + (len(_hint(hidden, nodes[i].index)) if hidden else 0)

    def children(i: int) -> list[int]:
        found, j = [], i + 1
        while j < end[i]:
            found.append(j)
            j = end[j]
        return found

    # Every length below counts one newline per line: the text has one fewer.
    budget = max_chars + 1
    tops: list[int] = []
    i = 0
    while i < count:
        tops.append(i)
        i = end[i]
    shown = bytearray(count)  # 0 hidden, 1 collapsed (or a leaf), 2 open
    total = 0
    kept_tops = len(tops)
    for position, top in enumerate(tops):
        cost = collapsed_cost(top)
        rest = count - end[top] if position + 1 < len(tops) else 0
        note = len(_tail_note(rest)) + 1 if rest else 0
        if total + cost + note > budget:
            kept_tops = position
            break
        total += cost
        shown[top] = 1
    tail: str | None = None
    if kept_tops < len(tops):
        hidden = count - (end[tops[kept_tops - 1]] if kept_tops else 0)
        if total + len(_tail_note(hidden)) + 1 <= budget:
            tail = _tail_note(hidden)
    else:
        pending = list(reversed(tops))
        while pending:
            i = pending.pop()
            if end[i] == i + 1:
                continue  # a leaf: nothing to open
            inner = children(i)
            extra = len(lines[i]) + 1 - collapsed_cost(i) + sum(map(collapsed_cost, inner))
            if total + extra > budget:
                continue  # stays collapsed; later (smaller) subtrees may still open
            total += extra
            shown[i] = 2
            for child in inner:
                shown[child] = 1
            pending.extend(reversed(inner))
    out_lines: list[str] = []
    out_nodes: list[SnapshotNode] = []
    cuts: list[SnapshotCut] = []
    for i in range(count):
        mode = shown[i]
        if not mode:
            continue
        node = nodes[i]
        hidden = end[i] - i - 1
        if mode == 1 and hidden:
            out_lines.append(lines[i] + _hint(hidden, node.index))
            cuts.append(SnapshotCut(node.index, node.role, node.name, hidden))
        else:
            out_lines.append(lines[i])
        out_nodes.append(node)
    for top in tops[kept_tops:]:
        node = nodes[top]
        cuts.append(SnapshotCut(node.index, node.role, node.name, end[top] - top))
    if tail is not None:
        out_lines.append(tail)
    return out_lines, out_nodes, cuts


def fit_lines(lines: list[str], max_chars: int) -> list[str]:
    """The first of ``lines`` that fit in ``max_chars`` (newlines included), and a last
    line counting the others when it fits too."""
    if sum(map(len, lines)) + len(lines) - 1 <= max_chars:
        return lines
    budget = max_chars + 1
    total = 0
    kept: list[str] = []
    for position, line in enumerate(lines):
        note = len(_tail_note(len(lines) - position - 1)) + 1
        if total + len(line) + 1 + note > budget:
            break
        kept.append(line)
        total += len(line) + 1
    note_line = _tail_note(len(lines) - len(kept))
    if total + len(note_line) + 1 <= budget:
        kept.append(note_line)
    return kept


def _signature(node: SnapshotNode) -> tuple[str, str, str | None, tuple[str, ...]]:
    # What a change is: not the position (a scroll or a node inserted above moves boxes).
    return (node.role, node.name, node.value, node.states)


def diff_lines(
    previous: tuple[Sequence[str], Sequence[SnapshotNode]] | None,
    lines: Sequence[str],
    nodes: Sequence[SnapshotNode],
) -> tuple[list[str], list[SnapshotNode]]:
    """The change lines from ``previous`` (lines and nodes of the earlier outline) to
    ``lines``/``nodes``: ``+ `` added, ``- `` removed, ``~ `` changed (same index, another
    role, name, value or states), unindented, in document order (a removed line after
    the line it followed); ``["unchanged"]`` when nothing changed. Also the nodes of the
    added and changed lines. With no previous outline every line is added."""
    if previous is None:
        return [f"+ {line.lstrip()}" for line in lines] or [UNCHANGED], list(nodes)
    old_lines, old_nodes = previous
    old = {node.index: node for node in old_nodes}
    new_indices = {node.index for node in nodes}
    # Each removed line follows the nearest line before it that is still there.
    removed_after: dict[int | None, list[str]] = {}
    anchor: int | None = None
    for line, node in zip(old_lines, old_nodes, strict=True):
        if node.index in new_indices:
            anchor = node.index
        else:
            removed_after.setdefault(anchor, []).append(f"- {line.lstrip()}")
    out = list(removed_after.get(None, ()))
    changed: list[SnapshotNode] = []
    for line, node in zip(lines, nodes, strict=True):
        before = old.get(node.index)
        if before is None:
            out.append(f"+ {line.lstrip()}")
            changed.append(node)
        elif _signature(before) != _signature(node):
            out.append(f"~ {line.lstrip()}")
            changed.append(node)
        out.extend(removed_after.get(node.index, ()))
    return out or [UNCHANGED], changed
