"""The world factory: seed → spec → app → claims → tasks → bundles."""

__version__ = "0.1.0"
