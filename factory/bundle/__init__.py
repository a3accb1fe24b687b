"""Benchmark bundles: a world as a reproducible, checksummed tarball that serves and grades without
the factory (`build_bundle`), and its verification (`verify_bundle`). See docs/bundles.md."""

from factory.bundle.build import BuiltBundle, build_bundle
from factory.bundle.errors import BundleError, BundleRejected
from factory.bundle.verify import VerifyReport, verify_bundle

__all__ = ["BuiltBundle", "BundleError", "BundleRejected", "VerifyReport", "build_bundle", "verify_bundle"]
