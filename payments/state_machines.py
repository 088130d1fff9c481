"""State machines: a table of allowed moves, checked and written in one place.

Every status that moves is a `StateMachine` built from a dict of allowed moves: quotes
(`quote_status`), transactions, customer verification (`customers`), external accounts, wallet
ownership challenges (`ownership`), SCA challenges (`sca.challenges`), 2FA resets (`sca.resets`),
signed-retry requests (`wallets/signed_retry.py`), cards (`cards.issuing`: the issuer's and the platform's
moves) and card transactions (`cards.authorizations`). Its `move` is the one way a row's status changes: it
locks the row (the caller may hold the lock already), does nothing when the row is already in the
target status, raises `IllegalTransition` (409 INVALID_STATE_TRANSITION) for a move the table does not
allow, and writes the status with `updated_at` and any other changes.
What a move sets off (history rows, webhooks, side effects) stays with each machine's own function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from payments.errors import Conflict
from payments.models.base import PublicRecord

__all__ = ["IllegalTransition", "Moved", "StateMachine", "update_row"]

type Writer = Callable[[Any, list[str]], object]
"""Writes the named fields of a locked row: ``save(update_fields=...)`` unless a machine says otherwise."""


class IllegalTransition(Conflict, code="INVALID_STATE_TRANSITION"):
    """A move the machine's table does not allow. `machine` names the machine."""

    def __init__(self, machine: StateMachine, row: PublicRecord, from_status: str, to_status: str) -> None:
        super().__init__(
            f"{machine.noun} in status {from_status} cannot move to {to_status}",
            **{machine.id_detail: row.public_id},
            fromStatus=from_status,
            toStatus=to_status,
        )
        self.machine = machine.name
        self.from_status, self.to_status = from_status, to_status


class Moved[M: PublicRecord](NamedTuple):
    row: M
    """The locked instance, in its new status."""
    from_status: str | None
    """The status it left, or None when it was already in the target status (nothing was written)."""


def _save(row: PublicRecord, fields: list[str]) -> None:
    row.save(update_fields=fields)


def update_row(row: PublicRecord, fields: list[str]) -> None:
    """A writer that UPDATEs the row directly, without `save()`."""
    type(row)._default_manager.filter(pk=row.pk).update(**{name: getattr(row, name) for name in fields})


class StateMachine(Mapping[str, frozenset[str]]):
    """A table of allowed moves (status → statuses it may move to), readable as that mapping.

    `final` lists the statuses nothing leaves (they need no row of their own). `noun` starts the
    refusal's message ("A quote"), `id_detail` names the row's id in its details.
    """

    def __init__(
        self,
        name: str,
        table: Mapping[str, Iterable[str]],
        *,
        final: Iterable[str] = (),
        noun: str,
        id_detail: str,
    ) -> None:
        self.name, self.noun, self.id_detail = name, noun, id_detail
        moves = {status: frozenset(to) for status, to in table.items()}
        self._table = MappingProxyType(
            moves | {status: frozenset() for status in final if status not in moves}
        )

    def __getitem__(self, status: str) -> frozenset[str]:
        return self._table[status]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def lock[M: PublicRecord](self, row: M, *, only: Sequence[str] = ()) -> M:
        """`row` read again under a row lock (`select_for_update`; on SQLite the transaction's lock)."""
        rows = type(row)._default_manager.select_for_update()
        return (rows.only(*only) if only else rows).get(pk=row.pk)

    def check(self, row: PublicRecord, to: str) -> None:
        """Raise IllegalTransition unless `row` may move from its status to `to` (staying is allowed)."""
        from_status = row.status
        if to != from_status and to not in self._table.get(from_status, ()):
            raise IllegalTransition(self, row, from_status, to)

    def move[M: PublicRecord](
        self,
        row: M,
        to: str,
        *,
        locked: bool = False,
        lock_only: Sequence[str] = (),
        changes: Mapping[str, Any] | None = None,
        write: Writer = _save,
    ) -> Moved[M]:
        """Move `row` to `to`; call inside a database transaction.

        Locks the row (`select_for_update`, only `lock_only` fields if given) unless the caller
        holds the lock and passes the locked instance with `locked=True`. Already in `to`: nothing
        is written. Otherwise checks the table, sets the status, `changes` and `updated_at` on the
        locked instance and has `write` store them. The instance passed in gets the same values.
        """
        current = row if locked else self.lock(row, only=lock_only)
        from_status = current.status
        if from_status == to:
            row.status = to
            return Moved(current, None)
        self.check(current, to)
        changes = changes or {}
        current.status = to
        for name, value in changes.items():
            setattr(current, name, value)
        current.touch()
        fields = ["status", "updated_at", *changes]
        write(current, fields)
        if current is not row:
            for name in fields:
                setattr(row, name, getattr(current, name))
        return Moved(current, from_status)
