"""``python -m h2dlint``."""

import os
import sys

# `python -m` puts the current directory first on sys.path, so a project being checked that has
# a click.py or libcst.py of its own would be imported in place of the real one: linting must
# never import the code it checks. Drop that entry, as `python -P` does.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from h2dlint.cli import entry

if __name__ == "__main__":
    entry()
