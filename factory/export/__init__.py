"""Exports of a built world into the formats other harnesses read: the Echoverse harness layout
(`echoverse.py`), Harbor task directories (`harbor.py`) and a Hugging Face dataset (`hf.py`).
Every export is deterministic: the same world gives the same bytes. See docs/exports.md."""

from factory.export.common import Exported
from factory.export.echoverse import export_echoverse
from factory.export.errors import ExportError
from factory.export.harbor import export_harbor
from factory.export.hf import export_hf

FORMATS = ("echoverse", "harbor", "hf")

__all__ = ["FORMATS", "ExportError", "Exported", "export_echoverse", "export_harbor", "export_hf"]
