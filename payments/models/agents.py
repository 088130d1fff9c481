"""Agents: programs acting for one customer under a policy, with their own credentials
(from a device code) and the actions they submit. Rules: `payments/agents/`."""

from __future__ import annotations

from django.db import models

from payments import clock, ids
from payments.models.base import PlatformScoped, optional_ref


class Agent(PlatformScoped):
    ID_KIND = "Agent"

    name = models.CharField(max_length=255)
    customer = models.ForeignKey("payments.Customer", on_delete=models.PROTECT, related_name="+")
    is_paused = models.BooleanField(default=False)
    # The reference's AgentPolicy in its wire shape, checked and completed by payments.agents.policy.
    policy = models.JSONField(default=dict)
    connected_at = models.DateTimeField(null=True, blank=True)  # its first device code redemption

    def __str__(self) -> str:
        return self.name


class AgentDeviceCode(models.Model):
    """A code that installs the agent's software, once, before it expires. Only its keyed digest is
    kept; the code is shown once, when it is issued."""

    id = models.UUIDField(primary_key=True, default=ids.uuid7, editable=False)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="device_codes")
    code_digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=clock.now, editable=False)
    expires_at = models.DateTimeField()
    redeemed_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)  # a newer code was issued

    def __str__(self) -> str:
        return f"device code of {self.agent_id}, expires {self.expires_at:%Y-%m-%d %H:%M}"


class AgentCredential(models.Model):
    """An agent's bearer access token `agt_<key_id>.<secret>`: the key id finds the row, the secret is
    kept as a keyed digest (as an API token's). Deleting the agent deletes it."""

    id = models.UUIDField(primary_key=True, default=ids.uuid7, editable=False)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="credentials")
    key_id = models.CharField(max_length=32, unique=True)
    secret_digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=clock.now, editable=False)

    def __str__(self) -> str:
        return f"agt_{self.key_id}"


class AgentAction(PlatformScoped):
    """An operation an agent submitted (a quote execution or a transfer), executed at once or after the
    platform approves it; kept after the agent is deleted. Change status only through
    payments.agents.actions."""

    ID_KIND = "AgentAction"
    Status = models.TextChoices("Status", "PENDING_APPROVAL APPROVED REJECTED FAILED")
    Type = models.TextChoices("Type", "EXECUTE_QUOTE TRANSFER_OUT TRANSFER_IN")

    # Kept when the agent is deleted (payments.agents.management.agent_delete), for the audit: the
    # agent then reads null and its id and name are kept below.
    agent = models.ForeignKey(Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="actions")
    deleted_agent_id = models.UUIDField(null=True, blank=True)
    deleted_agent_name = models.CharField(max_length=255, blank=True)
    customer = models.ForeignKey("payments.Customer", on_delete=models.PROTECT, related_name="+")
    type = models.CharField(max_length=16, choices=Type.choices)
    status = models.CharField(max_length=16, choices=Status.choices)
    quote = optional_ref("payments.Quote")
    # TRANSFER_*: the reference's AgentTransferDetails, as submitted.
    transfer_details = models.JSONField(null=True, blank=True)
    # TRANSFER_*: what else the request said (paymentRail, remittanceInformation, purposeOfPayment).
    transfer_options = models.JSONField(default=dict, blank=True)
    transaction = optional_ref("payments.Transaction")
    rejection_reason = models.TextField(blank=True)
    failure_reason = models.TextField(blank=True)
    # The platform's decision on a held action, for the audit: when, and which API token made it.
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=250, blank=True)
    # What the action counts against the spending limits, in the policy's currency when submitted.
    usage_amount = models.BigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["agent", "created_at"], name="agent_action_by_agent_time")]

    def __str__(self) -> str:
        return f"{self.type} {self.status}"

    @property
    def actor(self) -> str:
        """The name of the agent that submitted it; a deleted agent's kept name, marked so."""
        return self.agent.name if self.agent is not None else f"{self.deleted_agent_name} (deleted)"

    actor.fget.short_description = "agent"  # the admin's column


class AgentQuote(models.Model):
    """A quote an agent created: the only quotes it may read or execute."""

    quote = models.OneToOneField(
        "payments.Quote", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="quotes")

    def __str__(self) -> str:
        return f"quote {self.quote_id} of agent {self.agent_id}"
