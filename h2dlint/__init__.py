"""h2dlint: finds host-to-device copy and sync mistakes in PyTorch code.

This module must stay import-light: ``h2dlint --version`` imports it and nothing else
(no libcst, no torch).
"""

import os

__version__ = "0.1.0"


def _checkout_root() -> str | None:
    """The source checkout this package sits in, when it ships its rules beside it.

    An installed wheel holds ``h2dlint/rules``; a checkout keeps them in ``rules/`` at the top
    of the repository, which an editable install maps to ``h2dlint.rules`` for the checkout it
    was made from only. Another checkout of the same repository (a git worktree) importing its
    own ``h2dlint`` would otherwise run the first checkout's rules without a word."""
    package = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(package)
    if os.path.isdir(os.path.join(package, "rules")):
        return None
    if not os.path.isfile(os.path.join(root, "rules", "__init__.py")):
        return None
    if not os.path.isfile(os.path.join(root, "pyproject.toml")):
        return None
    return root


_root = _checkout_root()
if _root is not None:
    # Searched before the editable install's finder: ``h2dlint.rules`` is this checkout's.
    __path__.append(_root)
