"""The embedded default broker: a SQLite file through kombu's SQLAlchemy transport.

A message is a row, written and taken in transactions, so a worker never reads half a message (kombu's
`filesystem://` transport creates the file before writing it, and a reader that lists it in between
reads nothing and the worker dies on the empty JSON). The transport marks a message invisible when a
worker takes it and never deletes it; `broker_prune` does (a virtual transport's acknowledgements live
in the worker's memory, so an invisible row is never read again). With `CELERY_BROKER_URL` set to
Redis none of this applies.
"""

from __future__ import annotations

from kombu.transport.sqlalchemy import Channel as SQLAlchemyChannel
from kombu.transport.sqlalchemy import Transport as SQLAlchemyTransport
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.pool import NullPool


class Channel(SQLAlchemyChannel):
    """kombu's channel, safe when several processes open a new broker file at the same moment.

    kombu guards table and queue creation with a lock inside one process only: a web server and a
    worker starting together both create the `celery` queue row, and the second insert fails on the
    unique name (or both create the tables, and the second fails on "already exists")."""

    def _open(self):
        for attempt in range(3):
            try:
                return super()._open()
            except OperationalError:  # another process created the tables first: they exist now
                if attempt == 2:
                    raise

    def _get_or_create(self, queue):
        try:
            return super()._get_or_create(queue)
        except IntegrityError:
            self.session.rollback()
            return self.session.query(self.queue_cls).filter(self.queue_cls.name == queue).one()


class Transport(SQLAlchemyTransport):
    """kombu's SQLAlchemy transport, polling an empty queue every 0.1 s instead of every second: its
    worker takes at most a prefetch's worth of messages per poll (CELERY_WORKER_PREFETCH_MULTIPLIER
    1), so at 1 s a worker of concurrency 2 ran about two tasks a second however short."""

    Channel = Channel
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
