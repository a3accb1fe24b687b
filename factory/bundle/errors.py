"""The bundle room's errors: a world that cannot be bundled, and a bundle that fails verification."""

from __future__ import annotations

from factory.errors import FactoryError


class BundleError(FactoryError):
    """A world cannot be bundled (not built, no task corpus, no built frontend), or a file is not a bundle."""


class BundleRejected(BundleError):
    """A bundle failed verification: a checksum, a missing or extra file, or a gate. Exit code 1."""

    exit_code = 1
