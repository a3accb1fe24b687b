"""The export room's errors: a world that cannot be exported in a format."""

from __future__ import annotations

from factory.errors import FactoryError


class ExportError(FactoryError):
    """A world cannot be exported: not built, no task corpus, a record that does not load, an unwritable target."""
