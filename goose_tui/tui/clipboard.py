"""Copy that reaches the clipboard: OSC 52 to the terminal, and the system's clipboard tool.

A terminal that ignores OSC 52 (tmux's default ``set-clipboard external``, many SSH setups)
drops the copy silently, and the app cannot ask whether it arrived. So the text also goes to
``wl-copy`` (Wayland), ``xclip`` / ``xsel`` (X11) or ``pbcopy`` (macOS) when one is there for
the running session; when none is, the toast says the copy could not be confirmed and that
``W`` saves it to a file instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from textual.app import App

TOOL_TIMEOUT = 3.0


def clipboard_tools() -> list[list[str]]:
    """Commands that would put stdin on the clipboard here, best first."""
    tools: list[list[str]] = []
    if os.environ.get("WAYLAND_DISPLAY"):
        tools.append(["wl-copy"])
    if os.environ.get("DISPLAY"):
        tools += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    if sys.platform == "darwin":
        tools.append(["pbcopy"])
    return [tool for tool in tools if shutil.which(tool[0])]


def copy_with_tool(text: str) -> str | None:
    """The name of the tool that took ``text``, or None when no tool did."""
    for tool in clipboard_tools():
        try:
            done = subprocess.run(
                tool,
                input=text.encode("utf-8"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=TOOL_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return tool[0]
    return None


def copy_text(app: App[object], text: str, what: str) -> None:
    """Copy ``text`` (``what`` names it in the toast) by every way there is."""
    app.copy_to_clipboard(text)
    app.last_copy = text  # type: ignore[attr-defined]  # W saves it to a file
    tool = copy_with_tool(text)
    if tool is not None:
        app.notify(f"copied {what} ({len(text):,} characters, via {tool})", markup=False)
        return
    app.notify(
        f"sent {what} to the terminal's clipboard (OSC 52), but it could not be confirmed: "
        "no wl-copy, xclip, xsel or pbcopy here, and tmux drops OSC 52 unless "
        "set-clipboard is on. Press W to save it to a file instead.",
        title="copy not confirmed",
        severity="warning",
        timeout=12,
        markup=False,
    )
