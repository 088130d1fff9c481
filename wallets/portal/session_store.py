"""The session engine (`SESSION_ENGINE`): Django's database sessions, with fewer statements.

- A new session is one INSERT. Django first asks whether its random key is taken; the INSERT of a
  taken key fails anyway (the key is the primary key), and then another key is drawn.
- A key cycled during a request (sign-in, `cycle_key`) gets its row when the request saves the
  session, in that one INSERT, instead of an INSERT now and an UPDATE at the end; the old row goes
  with one DELETE (Django reads it first).
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS, CreateError, UpdateError
from django.utils.crypto import get_random_string


class SessionStore(db.SessionStore):
    _unsaved = False  # the key was drawn by `cycle_key` and has no row yet

    def _get_new_session_key(self) -> str:
        return get_random_string(32, VALID_KEY_CHARS)

    def cycle_key(self) -> None:
        data, old = self._session, self.session_key
        self._session_key = self._get_new_session_key()
        self._session_cache = data
        self._unsaved = self.modified = True
        if old:
            self.delete(old)

    def save(self, must_create: bool = False) -> None:
        if self.session_key is None:
            return self.create()
        try:
            super().save(must_create=must_create or self._unsaved)
        except CreateError:
            if must_create:
                raise
            raise UpdateError from None  # the cycled key was taken meanwhile: the request must start over
        self._unsaved = False
        return None

    def delete(self, session_key: str | None = None) -> None:
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        self.model.objects.filter(session_key=session_key).delete()
