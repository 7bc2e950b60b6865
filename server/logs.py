"""Logging setup: structlog, readable on a console by default, JSON on request.

Every log entry is one event (``client connected``, ``client disconnected``,
``protocol error``, ``player escaped`` ...) with key-value context bound by the
caller: ``conn`` (connection id), ``peer``, ``game`` and ``player``.
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

import structlog

LogFormat = Literal["console", "json"]


def configure_logging(fmt: LogFormat = "console", level: str = "info") -> None:
    """Send log events to standard error, as coloured text or as JSON lines."""
    renderer: structlog.typing.Processor
    if fmt == "json":
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info
            if fmt == "json"
            else structlog.processors.StackInfoRenderer(),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
