from payments.models.accounts import InternalAccount
from payments.models.agents import Agent, AgentAction, AgentCredential, AgentDeviceCode, AgentQuote
from payments.models.bulk_uploads import BulkUploadJob, BulkUploadRow
from payments.models.cards import Card, CardFundingSource, CardTransaction
from payments.models.contact_verifications import ContactVerification
from payments.models.customers import (
    BeneficialOwner,
    Customer,
    CustomerStatus,
    CustomerStatusChange,
    Document,
    OnboardingLink,
    Verification,
)
from payments.models.external_accounts import (
    ExternalAccount,
    ExternalAccountStatus,
    ExternalAccountStatusChange,
    OwnershipChallenge,
    OwnershipChallengeStatus,
)
from payments.models.idempotency import IdempotencyKey
from payments.models.invitations import Invitation
from payments.models.ledger import LedgerAccount, LedgerJournal, LedgerPosting
from payments.models.limits import DailyVolume
from payments.models.platforms import ApiToken, Platform
from payments.models.quotes import Quote, QuoteStatus, ReceiverLookup
from payments.models.sca import (
    ScaChallenge,
    ScaChallengeStatus,
    ScaFactor,
    ScaFactorReset,
    ScaFactorResetStatus,
    ScaPasskey,
    ScaProfile,
    ScaTotp,
)
from payments.models.service_keys import ServiceKey
from payments.models.stablecoins import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.models.transactions import Transaction, TransactionStatus
from payments.models.webhooks import WebhookAttempt, WebhookEvent

__all__ = [
    "Agent",
    "AgentAction",
    "AgentCredential",
    "AgentDeviceCode",
    "AgentQuote",
    "ApiToken",
    "BeneficialOwner",
    "BulkUploadJob",
    "BulkUploadRow",
    "Card",
    "CardFundingSource",
    "CardTransaction",
    "ContactVerification",
    "Customer",
    "CustomerStatus",
    "CustomerStatusChange",
    "DailyVolume",
    "Document",
    "ExternalAccount",
    "ExternalAccountStatus",
    "ExternalAccountStatusChange",
    "IdempotencyKey",
    "InternalAccount",
    "Invitation",
    "LedgerAccount",
    "LedgerJournal",
    "LedgerPosting",
    "OnboardingLink",
    "OwnershipChallenge",
    "OwnershipChallengeStatus",
    "Platform",
    "Quote",
    "QuoteStatus",
    "ReceiverLookup",
    "ScaChallenge",
    "ScaChallengeStatus",
    "ScaFactor",
    "ScaFactorReset",
    "ScaFactorResetStatus",
    "ScaPasskey",
    "ScaProfile",
    "ScaTotp",
    "ServiceKey",
    "Stablecoin",
    "StablecoinOperation",
    "StablecoinProviderAccount",
    "Transaction",
    "TransactionStatus",
    "Verification",
    "WebhookAttempt",
    "WebhookEvent",
]
