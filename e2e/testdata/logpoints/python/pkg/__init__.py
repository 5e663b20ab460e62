"""A package."""
from __future__ import annotations

NAME = "pkg"  # LP:pkginit {"name": __name__}
