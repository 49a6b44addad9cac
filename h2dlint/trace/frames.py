"""The user's stack at an event: the frames outside torch, h2dlint and the standard library,
innermost first, as :class:`~h2dlint.trace.events.Frame` values."""

from __future__ import annotations

import os
import sys
from types import CodeType, FrameType

from h2dlint.trace.events import Frame
from h2dlint.verify.copies import internal_dirs

MAX_FRAMES = 6
"""User frames kept per event: the call site and its callers (a helper called in a loop)."""
MAX_WALK = 256


class StackReader:
    """Reads user stacks, caching per code object whether it is internal and its absolute file."""

    def __init__(self, torch_file: str | None, limit: int = MAX_FRAMES) -> None:
        self.prefixes = internal_dirs(torch_file)
        self.limit = limit
        self._code: dict[CodeType, str | None] = {}

    def _file(self, code: CodeType) -> str | None:
        """The absolute file of ``code``, or None when it is internal."""
        try:
            return self._code[code]
        except KeyError:
            pass
        name = code.co_filename
        absolute = name if name.startswith("<") else os.path.abspath(name)
        internal = name.startswith(self.prefixes) or absolute.startswith(self.prefixes)
        self._code[code] = None if internal else absolute
        return self._code[code]

    def stack(self, depth: int = 1) -> tuple[Frame, ...]:
        """The user frames of the caller's stack (``depth`` frames up), innermost first."""
        frame: FrameType | None = sys._getframe(depth)
        found: list[Frame] = []
        walked = 0
        while frame is not None and len(found) < self.limit and walked < MAX_WALK:
            code = frame.f_code
            file = self._file(code)
            if file is not None:
                name = getattr(code, "co_qualname", code.co_name)
                found.append(Frame(file, frame.f_lineno or 0, name))
            frame = frame.f_back
            walked += 1
        return tuple(found)
