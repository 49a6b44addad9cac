"""Which questions make a run take another module's libcst tree, how often, for which modules.

Runs ``h2dlint check`` with the given arguments in this process (use ``-j 1``) with
``ProjectIndex.parsed`` wrapped: each call that finds the module's tree neither kept nor
offered (a stored tree loaded or a fresh libcst parse) is counted against the chain of h2dlint
functions that asked (the frames outside ``project/index.py``, innermost first), and the module.

    python benchmarks/tree_questions.py [--depth N] -- -j 1 --no-cache --select ALL FILES...
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import traceback
from collections import Counter


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest

    from h2dlint.project.index import ProjectIndex

    asked: Counter[tuple[str, ...]] = Counter()
    modules: Counter[str] = Counter()
    by_question: dict[tuple[str, ...], Counter[str]] = {}
    original = ProjectIndex.parsed

    def parsed(self: ProjectIndex, name: str) -> object:
        fresh = name not in self._parsed
        if fresh:
            chain: list[str] = []
            for frame in reversed(traceback.extract_stack()[:-1]):
                where = frame.filename
                if "h2dlint" not in where and "rules" not in where:
                    continue
                if where.endswith("project/index.py") and frame.name in {"parsed", "locate"}:
                    continue
                short = where.rsplit("/", 2)
                chain.append(f"{short[-2]}/{short[-1]}:{frame.name}")
                if len(chain) >= args.depth:
                    break
            key = tuple(chain)
            asked[key] += 1
            modules[name] += 1
            by_question.setdefault(key, Counter())[name] += 1
        return original(self, name)

    ProjectIndex.parsed = parsed  # type: ignore[method-assign,assignment]
    from h2dlint.cli import main as h2dlint_main

    sys.argv = ["h2dlint", "check", *rest]
    with contextlib.suppress(SystemExit):
        h2dlint_main()
    out = sys.stderr
    print(f"\n{sum(asked.values())} trees taken, {len(modules)} modules", file=out)
    for key, count in asked.most_common():
        print(f"{count:4d}  {' <- '.join(key)}", file=out)
        print(f"        {dict(by_question[key].most_common(6))}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
