"""Episode errors: each carries the HTTP status it is answered with and says what and where."""

from __future__ import annotations


class EpisodeError(Exception):
    """Base of every episode-server error."""

    status = 400


class WorldNotServable(EpisodeError):
    """The world directory lacks something the episode server needs (raised at start)."""

    status = 500


class UnknownTask(EpisodeError):
    status = 404


class UnknownEpisode(EpisodeError):
    status = 404


class EpisodeClosed(EpisodeError):
    """The episode was closed or expired: its state is gone."""

    status = 410


class ServerFull(EpisodeError):
    """The cap on concurrent episodes is reached."""

    status = 503


class BadRequest(EpisodeError):
    status = 400
