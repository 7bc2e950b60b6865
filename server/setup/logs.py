"""Logging setup: structlog, readable on a console by default, JSON on request.

Every log entry is one event (``client connected``, ``client disconnected``,
``protocol error``, ``player escaped`` ...) with key-value context bound by the
caller: ``conn`` (connection id), ``peer``, ``game`` and ``player``.

Logging never takes the server down: a line that cannot be written (standard error
closed, disk full) is dropped and counted (:func:`dropped_lines`). Records of the
standard :mod:`logging` module (trio's ``accept`` retry on ``EMFILE``, libraries)
become structlog events too. Events about one client go through a
:class:`RateLimitedLogger`, so a client cannot fill the log.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import IO, Any, Literal

import structlog
import trio

from ..ratelimit import TokenBucket

LogFormat = Literal["console", "json"]


class SafePrintLogger:
    """A structlog logger that prints lines and drops, counting them, those it cannot write.

    Writing to a closed pipe (``EPIPE``) or a full disk (``ENOSPC``) must not raise
    into whatever task was logging: the event is lost, not the server.
    """

    dropped = 0
    """Lines dropped since the process started, by every instance."""

    def __init__(self, file: IO[str] | None = None) -> None:
        self._file = file
        self._lock = threading.Lock()

    def msg(self, message: str) -> None:
        file = self._file if self._file is not None else sys.stderr
        with self._lock:
            try:
                file.write(message + "\n")
                file.flush()
            except (OSError, ValueError):  # ValueError: the file was closed
                SafePrintLogger.dropped += 1

    log = debug = info = warn = warning = error = critical = exception = fatal = msg


def _safe_print_logger(*_names: Any) -> SafePrintLogger:
    return SafePrintLogger()


def dropped_lines() -> int:
    """Log lines that could not be written since the process started."""
    return SafePrintLogger.dropped


class _ToStructlog(logging.Handler):
    """Hands records of the standard ``logging`` module to structlog, one event each."""

    def emit(self, record: logging.LogRecord) -> None:
        exc_info = record.exc_info
        if exc_info and isinstance(exc_info[1], OSError):
            exc_info = None  # an operating-system condition (EMFILE), not a bug: no traceback
        fields: dict[str, Any] = {"logger": record.name}
        if exc_info:
            fields["exc_info"] = exc_info
        structlog.get_logger().log(record.levelno, record.getMessage(), **fields)


_json_lines = False
"""Whether :func:`configure_logging` chose JSON: then every line on standard error is JSON."""
_worker: int | None = None
"""The number of this process among ``--workers`` (``None``: not one of them)."""


def announce(program: str, text: str, *, level: str = "info", **fields: Any) -> None:
    """Tell whoever started the program what it waits for (where the server listens,
    why it cannot start), at any log level: ``<program>: <text>`` on a console, or, once
    logs are JSON, one JSON object whose ``event`` is ``text`` (``listening on
    127.0.0.1:40004``), with ``fields`` beside it, so that standard error stays JSON."""
    if _worker is not None:
        fields = {**fields, "worker": _worker}
        program = f"{program} worker {_worker}"
    if _json_lines:
        stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        line = json.dumps({"event": text, **fields, "level": level, "timestamp": stamp})
    else:
        line = f"{program}: {text}"
    SafePrintLogger().msg(line)


def configure_logging(
    fmt: LogFormat | str = "console", level: str = "info", *, worker: int | None = None
) -> None:
    """Send log events to standard error, as coloured text or (``fmt="json"``) JSON lines
    (and :func:`announce`'s lines with them). ``worker``: this process is that worker of
    ``--workers``, and every line says so (``worker=1``; ``dod-server worker 1: ...``)."""
    global _json_lines, _worker
    _json_lines = fmt == "json"
    _worker = worker
    renderer: structlog.typing.Processor
    if fmt == "json":
        renderer = structlog.processors.JSONRenderer()
    else:
        try:
            colors = sys.stderr.isatty()
        except (OSError, ValueError):
            colors = False
        renderer = structlog.dev.ConsoleRenderer(colors=colors)
    numeric_level = logging.getLevelName(level.upper())
    structlog.configure(
        processors=[
            *([] if worker is None else [_Stamp("worker", worker)]),
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info
            if fmt == "json"
            else structlog.processors.StackInfoRenderer(),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        logger_factory=_safe_print_logger,
        cache_logger_on_first_use=True,
    )
    root = logging.getLogger()
    root.handlers[:] = [_ToStructlog()]
    root.setLevel(numeric_level)
    # Alembic tells each step of opening the store (``Context impl SQLiteImpl.``, its
    # plugins, each migration) at info: chatter on every start, shown at debug only.
    # The store's own ``store ready`` event says which revision it is at.
    chatter = logging.WARNING if numeric_level > logging.DEBUG else logging.NOTSET
    logging.getLogger("alembic").setLevel(chatter)


class _Stamp:
    """A structlog processor that adds one field to every event."""

    def __init__(self, key: str, value: object) -> None:
        self.key, self.value = key, value

    def __call__(
        self, logger: Any, method: str, event: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        event.setdefault(self.key, self.value)
        return event


class LogAllowance:
    """One client's allowance of log events: a :class:`~server.ratelimit.TokenBucket`
    (``burst`` at once, ``rate`` a second) and how many events it refused."""

    def __init__(self, rate: float, burst: int) -> None:
        self.bucket = TokenBucket(rate, burst)
        self.suppressed = 0
        """Events refused since the last one allowed."""
        self._last = trio.current_time()

    def take(self) -> bool:
        """Whether one more event may pass now (a refusal is counted)."""
        self._last = trio.current_time()
        if self.bucket.take():
            return True
        self.suppressed += 1
        return False

    def refilled(self, now: float) -> bool:
        """Whether nothing is owed and the bucket is full again at ``now`` (forgettable)."""
        bucket = self.bucket
        return not self.suppressed and now - self._last >= bucket.burst / bucket.rate


class RateLimitedLogger:
    """A bound structlog logger whose events below ``error`` pass a :class:`LogAllowance`.

    Refused events are counted; the first event that passes afterwards is preceded
    by one ``log lines suppressed`` event with their ``count`` (:meth:`flush_suppressed`
    reports them at once, say when the client is gone). Errors always pass: they are
    about the server, not the client.
    """

    def __init__(self, logger: Any, allowance: LogAllowance) -> None:
        self._logger = logger
        self.allowance = allowance

    def bind(self, **context: Any) -> RateLimitedLogger:
        return RateLimitedLogger(self._logger.bind(**context), self.allowance)

    def _limited(self, method: str, event: str, **fields: Any) -> None:
        if not self.allowance.take():
            return
        self.flush_suppressed()
        getattr(self._logger, method)(event, **fields)

    def flush_suppressed(self) -> None:
        """Log how many events were suppressed since the last one that passed, if any."""
        count, self.allowance.suppressed = self.allowance.suppressed, 0
        if count:
            self._logger.warning("log lines suppressed", count=count)

    def debug(self, event: str, **fields: Any) -> None:
        self._limited("debug", event, **fields)

    def info(self, event: str, **fields: Any) -> None:
        self._limited("info", event, **fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._limited("warning", event, **fields)

    def error(self, event: str, **fields: Any) -> None:
        self._logger.error(event, **fields)

    def exception(self, event: str, **fields: Any) -> None:
        self._logger.exception(event, **fields)

    def critical(self, event: str, **fields: Any) -> None:
        self._logger.critical(event, **fields)
