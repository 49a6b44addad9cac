"""Which lines of the user's files ran: the evidence that a finding's line ran and cost nothing.

On Python 3.12+ ``sys.monitoring`` reports each line location once (the callback disables the
location after the first hit), so the cost is one callback per distinct line. Older Pythons have
no such cheap hook: there the trace records no lines, and a finding with no event at its line is
"not reached" without proof either way.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

TOOL_IDS = (4, 3)
"""``sys.monitoring`` tool ids h2dlint tries (0-2 and 5 are the debugger, coverage, profiler and
optimizer ids that other tools claim)."""
TOOL_NAME = "h2dlint trace"


def available() -> bool:
    return hasattr(sys, "monitoring")


class LineCoverage:
    """Records, between :meth:`start` and :meth:`stop`, the lines that ran in files ``wanted``
    accepts (absolute paths)."""

    def __init__(self, wanted: Callable[[str], bool]) -> None:
        self.wanted = wanted
        self.lines: dict[str, set[int]] = {}
        self._files: dict[str, str | None] = {}
        self._tool: int | None = None

    def _file(self, name: str) -> str | None:
        try:
            return self._files[name]
        except KeyError:
            pass
        absolute = name if name.startswith("<") else os.path.abspath(name)
        self._files[name] = absolute if self.wanted(absolute) else None
        return self._files[name]

    def start(self) -> bool:
        """Start recording; False when this Python cannot (before 3.12, or no free tool id)."""
        monitoring: Any = getattr(sys, "monitoring", None)
        if monitoring is None:
            return False
        for tool in TOOL_IDS:
            if monitoring.get_tool(tool) is None:
                monitoring.use_tool_id(tool, TOOL_NAME)
                self._tool = tool
                break
        else:
            return False
        disable = monitoring.DISABLE

        def line(code: Any, number: int) -> Any:
            file = self._file(code.co_filename)
            if file is not None:
                self.lines.setdefault(file, set()).add(number)
            return disable

        monitoring.register_callback(self._tool, monitoring.events.LINE, line)
        monitoring.set_events(self._tool, monitoring.events.LINE)
        monitoring.restart_events()  # lines disabled by an earlier trace report again
        return True

    def stop(self) -> dict[str, set[int]] | None:
        """The lines that ran, or None when nothing was recorded."""
        monitoring: Any = getattr(sys, "monitoring", None)
        if monitoring is None or self._tool is None:
            return None
        monitoring.set_events(self._tool, 0)
        monitoring.register_callback(self._tool, monitoring.events.LINE, None)
        monitoring.free_tool_id(self._tool)
        self._tool = None
        return self.lines
