"""Device codes and agent credentials.

- A **device code** (`SERVICE-AGENT-XXXX-XXXX-XXXX`, 60 random bits) installs the agent's software:
  it is valid for DEVICE_CODE_LIFETIME, redeems once (under the row lock, so of concurrent
  redemptions exactly one succeeds) and only its keyed digest is stored. Issuing a new code revokes
  the agent's unredeemed ones; a connected agent gets no new code (409), as the reference says.
- Redemption gives the agent a bearer **access token** `agt_<key id>.<secret>`, stored as the API
  tokens' secrets are (payments.secret_digests); deleting the agent deletes its credentials, so the
  token stops working on the next request.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from payments import clock
from payments.errors import BadRequest, Conflict, first_or_404
from payments.models import Agent, AgentCredential, AgentDeviceCode, Platform
from payments.secret_digests import secret_digest, secret_matches

DEVICE_CODE_LIFETIME = dt.timedelta(hours=24)
DEVICE_CODE = "payments.agent-device-code"  # the digests' purposes
ACCESS_TOKEN = "payments.agent-access-token"
_CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I
_CODE_PREFIX = "SERVICE-AGENT-"
_TOKEN = re.compile(r"agt_([0-9a-f]{32})\.([A-Za-z0-9_-]{43})")


@dataclass(frozen=True)
class IssuedCode:
    """A device code as issued: the only time the code itself is known."""

    code: str
    row: AgentDeviceCode


def _new_code() -> str:
    groups = ["".join(secrets.choice(_CODE_ALPHABET) for _ in range(4)) for _ in range(3)]
    return _CODE_PREFIX + "-".join(groups)


def _digest(code: str) -> str:
    return secret_digest(DEVICE_CODE, code.strip().upper())


def device_code_issue(agent: Agent) -> IssuedCode:
    """A new code for `agent` (locked by the caller); its unredeemed codes are revoked."""
    now = clock.now()
    agent.device_codes.filter(redeemed_at__isnull=True, revoked_at__isnull=True).update(revoked_at=now)
    for _ in range(3):  # a collision of 60 random bits is not expected; a retry costs nothing
        code = _new_code()
        try:
            with transaction.atomic():
                row = AgentDeviceCode.objects.create(
                    agent=agent, code_digest=_digest(code), expires_at=now + DEVICE_CODE_LIFETIME
                )
            return IssuedCode(code=code, row=row)
        except IntegrityError:
            continue
    raise RuntimeError("could not find a free device code")


@transaction.atomic
def agent_device_code_regenerate(*, platform: Platform, agent_id) -> IssuedCode:
    agent = first_or_404(
        Agent.objects.for_platform(platform).select_for_update().filter(pk=agent_id), "Agent"
    )
    if agent.connected_at is not None:
        raise Conflict("The agent is already connected; delete it and create a new one to reinstall")
    return device_code_issue(agent)


def device_code_status(*, platform: Platform, code: str) -> AgentDeviceCode:
    """The platform's device code `code`; 404 for any other."""
    rows = AgentDeviceCode.objects.filter(code_digest=_digest(code), agent__platform=platform)
    return first_or_404(rows, "Device code")


@transaction.atomic
def device_code_redeem(*, code: str) -> tuple[Agent, str]:
    """The agent and its new access token (returned once). 404 for an unknown code; 400 for one that
    was redeemed, replaced by a newer one, or has expired."""
    row = first_or_404(
        AgentDeviceCode.objects.select_for_update().select_related("agent").filter(code_digest=_digest(code)),
        "Device code",
    )
    if row.redeemed_at is not None:
        raise BadRequest("This device code has already been redeemed", code="DEVICE_CODE_ALREADY_REDEEMED")
    if row.revoked_at is not None:
        raise BadRequest("This device code was replaced by a newer one", code="DEVICE_CODE_REVOKED")
    now = clock.now()
    if row.expires_at <= now:
        raise BadRequest("This device code has expired; generate a new one", code="DEVICE_CODE_EXPIRED")
    row.redeemed_at = now
    row.save(update_fields=["redeemed_at"])
    agent = row.agent
    agent.connected_at = agent.connected_at or now
    agent.touch()
    agent.save(update_fields=["connected_at", "updated_at"])
    key_id, secret = secrets.token_hex(16), secrets.token_urlsafe(32)
    AgentCredential.objects.create(
        agent=agent, key_id=key_id, secret_digest=secret_digest(ACCESS_TOKEN, secret)
    )
    return agent, f"agt_{key_id}.{secret}"


def agent_authenticate(*, token: str) -> Agent | None:
    """The agent whose access token is exactly `token`, or None."""
    match = _TOKEN.fullmatch(token)
    credential = (
        AgentCredential.objects.select_related("agent__platform", "agent__customer")
        .filter(key_id=match[1])
        .first()
        if match
        else None
    )
    if not secret_matches(
        ACCESS_TOKEN, match[2] if match else token, credential.secret_digest if credential else None
    ):
        return None
    return credential.agent
