"""The embedded default broker: a SQLite file through kombu's SQLAlchemy transport.

A message is a row, written and taken in transactions, so a worker never reads half a message (kombu's
`filesystem://` transport creates the file before writing it, and a reader that lists it in between
reads nothing and the worker dies on the empty JSON). The transport marks a message invisible when a
worker takes it and never deletes it; `broker_prune` does (a virtual transport's acknowledgements live
in the worker's memory, so an invisible row is never read again). With `CELERY_BROKER_URL` set to
Redis none of this applies.
"""

from __future__ import annotations

from kombu.transport.sqlalchemy import Transport as SQLAlchemyTransport
from sqlalchemy.pool import NullPool


class Transport(SQLAlchemyTransport):
    """kombu's SQLAlchemy transport, polling an empty queue every 0.1 s instead of every second: its
    worker takes at most a prefetch's worth of messages per poll (CELERY_WORKER_PREFETCH_MULTIPLIER
    1), so at 1 s a worker of concurrency 2 ran about two tasks a second however short."""

    polling_interval = 0.1


SQLITE_TRANSPORT_OPTIONS = {
    # create_engine() arguments. No pooled connections: the worker forks its pool processes and its
    # scheduler, and a SQLite connection must not cross a fork. A writer waits for the lock.
    "poolclass": NullPool,
    "connect_args": {"timeout": 20},
}


def broker_prune() -> int:
    """Delete the messages workers have taken (the SQLite broker only); how many."""
    from project.celery import app

    with app.connection_for_write() as connection:
        channel = connection.default_channel
        if not hasattr(channel, "message_cls"):
            return 0
        message = channel.message_cls
        deleted = (
            channel.session.query(message)
            .filter(message.visible.is_(False))
            .delete(synchronize_session=False)
        )
        channel.session.commit()
    return deleted
