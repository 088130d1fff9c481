"""DESIGN.md "Between the two apps": payments reaches wallets through `payments/wallet_seam.py` only,
which imports no wallets module either (wallets installs its implementations there when it is ready),
and no signal crosses the apps. Read from the source (every import, also inside functions)."""

from __future__ import annotations

import ast
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEAM = "payments/wallet_seam.py"
# payments/portal/ is moving into wallets/portal/ (the portal talks to the service through its client).
NOT_PAYMENTS_DOMAIN = ("payments/portal/", "payments/migrations/")


def _modules(app: str) -> Iterator[tuple[str, str, ast.Module]]:
    """(path relative to the repository, dotted module name, tree) of every module of `app`."""
    for path in sorted((ROOT / app).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if "/migrations/" in relative:
            continue
        parts = relative.removesuffix(".py").split("/")
        if parts[-1] == "__init__":
            parts.pop()
        yield relative, ".".join(parts), ast.parse(path.read_text(encoding="utf-8"), relative)


def _absolute(node: ast.ImportFrom, module: str, relative: str) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if not relative.endswith("__init__.py"):
        package.pop()
    package = package[: len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _imported(tree: ast.Module, module: str, relative: str) -> Iterator[tuple[str, str | None]]:
    """(module, name or None) for every import, and every import_module/import_string of a literal."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, relative)
            for alias in node.names:
                yield source, alias.name
                yield f"{source}.{alias.name}", None  # `from wallets import passkeys`
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("import_module", "import_string", "__import__") and isinstance(
                node.args[0].value, str
            ):
                yield node.args[0].value, None


def _app(dotted: str) -> str:
    return dotted.split(".")[0]


def test_payments_imports_wallets_nowhere():
    offenders = set()
    for relative, module, tree in _modules("payments"):
        if relative.startswith(NOT_PAYMENTS_DOMAIN):
            continue
        for source, _name in _imported(tree, module, relative):
            if _app(source) == "wallets":
                offenders.add((relative, source))
    assert not offenders, (
        f"payments calls wallets through {SEAM}, which wallets fills in: {sorted(offenders)}"
    )


def test_wallets_installs_the_seam_when_ready():
    from django.apps import apps

    from payments import wallet_seam
    from wallets import contact, credentials, passkeys, stamp_check

    assert apps.ready
    installed = wallet_seam._installed()
    assert installed.wallet_stamp_verify is stamp_check.wallet_stamp_verify
    assert installed.registration_verify is passkeys.registration_verify
    assert installed.assertion_verify is passkeys.assertion_verify
    assert installed.contact_change_guard is contact.contact_change_guard
    assert installed.contact_changes_settle_due is contact.contact_changes_settle_due
    assert installed.wallet_bootstrap is credentials.wallet_bootstrap


def test_a_seam_call_before_wallets_is_ready_fails_loudly(monkeypatch):
    from payments import wallet_seam

    monkeypatch.setattr(wallet_seam, "_wallets", None)
    with pytest.raises(wallet_seam.WalletSeamNotInstalled):
        wallet_seam.wallet_stamp_verify(internal_account_id=uuid.uuid4(), payload="{}", header=None)


def _signals(app: str) -> set[tuple[str, str]]:
    """(module, name) of every module-level `name = Signal(...)` in the app."""
    found = set()
    for _relative, module, tree in _modules(app):
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
                func = node.value.func
                if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == "Signal":
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    found.update((module, target.id) for target in targets if isinstance(target, ast.Name))
    return found


def _senders(tree: ast.Module) -> Iterator[ast.expr]:
    """The `sender=` of every `@receiver(...)` and `signal.connect(...)`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in (
                "receiver",
                "connect",
            ):
                yield from (keyword.value for keyword in node.keywords if keyword.arg == "sender")


def test_no_signal_crosses_the_apps():
    """Neither app listens to a signal of the other, nor to Django's model signals of the other's models:
    what one app needs of the other is a plain call (payments: through the seam)."""
    signals = _signals("payments") | _signals("wallets")
    crossings = []
    for app, other in (("payments", "wallets"), ("wallets", "payments")):
        for relative, module, tree in _modules(app):
            from_other = {}
            for source, name in _imported(tree, module, relative):
                if name and _app(source) == other:
                    from_other[name] = source
                    if (source, name) in signals:
                        crossings.append((relative, f"{source}.{name}"))
            for sender in _senders(tree):
                if isinstance(sender, ast.Name) and sender.id in from_other:
                    crossings.append((relative, f"receiver for {from_other[sender.id]}.{sender.id}"))
    assert not crossings
