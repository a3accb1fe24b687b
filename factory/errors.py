"""Error hierarchy: every failure the factory reports says what went wrong and where."""

from __future__ import annotations


class FactoryError(Exception):
    """Base of every error the factory raises on purpose; the CLI maps it to exit code 2."""

    exit_code = 2


class SeedError(FactoryError):
    """A seed file is malformed or inconsistent; carries file, line and key."""

    def __init__(self, file: str, line: int | None, key: str, message: str) -> None:
        self.file, self.line, self.key, self.message = file, line, key, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")


class ExpressionError(FactoryError):
    """An expression in a precondition, effect or storyline does not parse or type-check."""

    def __init__(self, source: str, message: str, column: int | None = None) -> None:
        self.source, self.message, self.column = source, message, column
        at = f" at column {column + 1}" if column is not None else ""
        super().__init__(f"{message}{at} in `{source}`")


class BuildError(FactoryError):
    """Compiling a spec into an app, or building its frontend or database, failed."""


class BootstrapError(FactoryError):
    """A tool the factory needs (npm, Chromium) is missing and cannot be installed here."""


class WorldError(FactoryError):
    """A world directory is missing, incomplete or cannot be written."""


class ClaimsTampered(WorldError):
    """claims.json is not what the world's seed compiles to (or not what its lock names)."""


class TaskError(FactoryError):
    """A stage-two task cannot be made: its instruction, setup or reward is not sound."""


class PredictionError(FactoryError):
    """A workflow's database effects cannot be predicted: an unknown or invisible row, a parameter
    the app would reject, or an effect the database would refuse."""


class ClientError(WorldError):
    """A built world's app refused the client that acts as a user (a login, a rebinding)."""


class SetupError(TaskError):
    """The backend refused a setup or golden step; `status` and `detail` say how."""

    def __init__(self, message: str, status: int = 0, detail: str = "") -> None:
        self.status, self.detail = status, detail
        super().__init__(message)
