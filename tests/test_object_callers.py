"""The summary part ``object_calls`` (session 39, calls39; ``h2dlint/project/object_callers.py``):
calls of objects whose class the module names, resolved to the function that makes them, with
whether the call may run more than once per call of that function."""

from __future__ import annotations

import ast
import textwrap

from h2dlint.project.object_callers import object_calls

SOURCE = textwrap.dedent(
    """
    from pkg.models import Checker, Vocoder
    class Pipe(DiffusionPipeline):
        def __init__(self, unet, checker: Checker, other: int):
            self.register_modules(unet=unet, checker=checker, other=other)
            self.vocoder = Vocoder.from_pretrained("v").to("cuda")
        def run_checker(self, image):
            return self.checker(image)
        def stream(self, mels):
            for mel in mels:
                yield self.vocoder(mel)
            return [self.vocoder(m) for m in mels]
        def once(self, mel):
            return self.vocoder(mel), self.unet(mel)
    def local(mel):
        vocoder = Vocoder()
        return vocoder(mel)
    """
)


def test_object_calls_name_their_function_class_and_loops() -> None:
    part = object_calls(ast.parse(SOURCE))
    assert sorted(part["calls"], key=lambda call: call[3]) == [
        ["Checker", "run_checker", "Pipe", 8, False],
        ["Vocoder", "stream", "Pipe", 11, True],
        ["Vocoder", "stream", "Pipe", 12, True],
        ["Vocoder", "once", "Pipe", 14, False],
        ["Vocoder", "local", None, 17, False],
    ]
    assert part["bases"] == {"Pipe": ["DiffusionPipeline"]}
    assert part["imports"]["Vocoder"] == "pkg.models.Vocoder"
