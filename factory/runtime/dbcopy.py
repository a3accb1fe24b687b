"""Where the factory's stages get `copy_db`: the one database copier lives in `episodes.dbfiles`
(the episode server ships without the factory and resets episodes with it)."""

from __future__ import annotations

from episodes.dbfiles import copy_db

__all__ = ["copy_db"]
