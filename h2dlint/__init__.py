"""h2dlint: finds host-to-device copy and sync mistakes in PyTorch code.

This module must stay import-light: ``h2dlint --version`` imports it and nothing else
(no libcst, no torch).
"""

__version__ = "0.1.0"
