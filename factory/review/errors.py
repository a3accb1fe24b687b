"""The review site's errors: a world it cannot read, or a site it cannot write."""

from __future__ import annotations

from factory.errors import FactoryError


class ReviewError(FactoryError):
    """The review site cannot be built: what is missing or malformed, where, and what makes it."""


__all__ = ["ReviewError"]
