from payments.api import agent_operations as me
from payments.api import schema_auth  # noqa: F401 (the OpenAPI document's authentication extension)
from payments.api.agents import (
    AgentActionApproveApi,
    AgentActionRejectApi,
    AgentApprovalListApi,
    AgentDetailApi,
    AgentDeviceCodeApi,
    AgentListCreateApi,
    AgentPolicyApi,
    DeviceCodeRedeemApi,
    DeviceCodeStatusApi,
)
from payments.api.beneficial_owners import BeneficialOwnerDetailApi, BeneficialOwnerListCreateApi
from payments.api.bulk_uploads import BulkCustomerCsvUploadApi, BulkCustomerImportJobApi
from payments.api.card_simulations import SIMULATORS
from payments.api.cards import CardDetailApi, CardListCreateApi, CardRevealApi
from payments.api.config import ConfigApi
from payments.api.contact_verification import (
    CustomerEmailVerifyApi,
    CustomerEmailVerifyConfirmApi,
    CustomerPhoneVerifyApi,
    CustomerPhoneVerifyConfirmApi,
)
from payments.api.customers import CustomerDetailApi, CustomerListCreateApi, EndUserTermsApi
from payments.api.directory import DiscoveryListApi, UmaProviderListApi, VaspListApi
from payments.api.documents import DocumentDetailApi, DocumentListUploadApi
from payments.api.exchange_rates import ExchangeRateListApi
from payments.api.external_accounts import (
    CustomerExternalAccountDetailApi,
    CustomerExternalAccountListCreateApi,
    CustomerOwnershipChallengeApi,
    CustomerOwnershipVerifyApi,
    PlatformExternalAccountDetailApi,
    PlatformExternalAccountListCreateApi,
    PlatformOwnershipChallengeApi,
    PlatformOwnershipVerifyApi,
)
from payments.api.internal_accounts import CustomerInternalAccountListApi, PlatformInternalAccountListApi
from payments.api.invitations import (
    InvitationCancelApi,
    InvitationClaimApi,
    InvitationCreateApi,
    InvitationDetailApi,
)
from payments.api.kyc_links import CustomerKycLinkApi
from payments.api.quotes import QuoteCreateApi, QuoteDetailApi, QuoteExecuteApi
from payments.api.receivers import ReceiverExternalAccountLookupApi, ReceiverUmaLookupApi
from payments.api.routing import routes
from payments.api.sandbox import SandboxFundApi, SandboxSendApi, SandboxUmaReceiveApi
from payments.api.sandbox_clock import SandboxClockAdvanceApi, SandboxClockApi, SandboxClockResetApi
from payments.api.sca import (
    BeneficiaryTrustConfirmApi,
    BeneficiaryTrustStartApi,
    BeneficiaryUntrustConfirmApi,
    BeneficiaryUntrustStartApi,
    QuoteAuthorizeApi,
    QuoteAuthorizeResendApi,
    ScaFactorConfirmApi,
    ScaFactorDeleteApi,
    ScaFactorListEnrollApi,
    ScaLoginCompleteApi,
    ScaLoginStartApi,
)
from payments.api.sca_recovery import (
    ScaFactorResetApi,
    ScaFactorResetCompleteApi,
    ScaFactorResetDetailApi,
    ScaRecordEventApi,
)
from payments.api.stablecoins import (
    StablecoinBurnApi,
    StablecoinDetailApi,
    StablecoinLinkApi,
    StablecoinLinkListApi,
    StablecoinListRegisterApi,
    StablecoinMintApi,
    StablecoinOperationApi,
    StablecoinOperationListApi,
)
from payments.api.tokens import TokenDetailApi, TokenListCreateApi
from payments.api.transactions import (
    TransactionApproveApi,
    TransactionCancelApi,
    TransactionConfirmApi,
    TransactionDetailApi,
    TransactionListApi,
    TransactionRejectApi,
)
from payments.api.transfers import TransferInApi, TransferOutApi
from payments.api.verifications import VerificationDetailApi, VerificationListCreateApi
from payments.api.webhooks import SandboxWebhookTestApi
from payments.api.withdrawal_fees import CryptoWithdrawalFeeEstimateApi


def _external_account_actions(owner: str, *actions: tuple[str, type]) -> list[tuple[str, type, str]]:
    """`/external-accounts/{externalAccountId}/<action>` routes, named `<owner>-external-account-<action>`."""
    return [
        (
            f"/external-accounts/<str:externalAccountId>/{action}",
            view,
            f"{owner}-external-account-{action.replace('/', '-')}",
        )
        for action, view in actions
    ]


urlpatterns = [
    *routes(
        "",
        ("config", ConfigApi, "config"),
    ),
    *routes(
        "tokens",
        ("", TokenListCreateApi, "token-list"),
        ("/<str:tokenId>", TokenDetailApi, "token-detail"),
    ),
    # Fixed customers/... paths come before customers/<customerId>.
    *routes(
        "customers",
        ("", CustomerListCreateApi, "customer-list"),
        ("/end-user-terms", EndUserTermsApi, "end-user-terms"),
        ("/internal-accounts", CustomerInternalAccountListApi, "customer-internal-accounts"),
        ("/bulk/csv", BulkCustomerCsvUploadApi, "customer-bulk-csv"),
        ("/bulk/jobs/<str:jobId>", BulkCustomerImportJobApi, "customer-bulk-job"),
        ("/external-accounts", CustomerExternalAccountListCreateApi, "customer-external-account-list"),
        (
            "/external-accounts/<str:externalAccountId>",
            CustomerExternalAccountDetailApi,
            "customer-external-account-detail",
        ),
        *_external_account_actions(
            "customer",
            ("challenge", CustomerOwnershipChallengeApi),
            ("verify", CustomerOwnershipVerifyApi),
            ("trust", BeneficiaryTrustStartApi),
            ("trust/confirm", BeneficiaryTrustConfirmApi),
            ("untrust", BeneficiaryUntrustStartApi),
            ("untrust/confirm", BeneficiaryUntrustConfirmApi),
        ),
        ("/<str:customerId>", CustomerDetailApi, "customer-detail"),
        ("/<str:customerId>/kyc-link", CustomerKycLinkApi, "customer-kyc-link"),
        ("/<str:customerId>/verify-email", CustomerEmailVerifyApi, "customer-verify-email"),
        (
            "/<str:customerId>/verify-email/confirm",
            CustomerEmailVerifyConfirmApi,
            "customer-verify-email-confirm",
        ),
        ("/<str:customerId>/verify-phone", CustomerPhoneVerifyApi, "customer-verify-phone"),
        (
            "/<str:customerId>/verify-phone/confirm",
            CustomerPhoneVerifyConfirmApi,
            "customer-verify-phone-confirm",
        ),
    ),
    *routes(
        "platform",
        ("/internal-accounts", PlatformInternalAccountListApi, "platform-internal-accounts"),
        ("/external-accounts", PlatformExternalAccountListCreateApi, "platform-external-account-list"),
        (
            "/external-accounts/<str:externalAccountId>",
            PlatformExternalAccountDetailApi,
            "platform-external-account-detail",
        ),
        *_external_account_actions(
            "platform",
            ("challenge", PlatformOwnershipChallengeApi),
            ("verify", PlatformOwnershipVerifyApi),
        ),
    ),
    *routes(
        "invitations",
        ("", InvitationCreateApi, "invitation-create"),
        ("/<str:invitationCode>", InvitationDetailApi, "invitation-detail"),
        ("/<str:invitationCode>/claim", InvitationClaimApi, "invitation-claim"),
        ("/<str:invitationCode>/cancel", InvitationCancelApi, "invitation-cancel"),
    ),
    *routes(
        "cards",
        ("", CardListCreateApi, "card-list"),
        ("/<str:id>", CardDetailApi, "card-detail"),
        ("/<str:id>/reveal", CardRevealApi, "card-reveal"),
    ),
    *routes(
        "verifications",
        ("", VerificationListCreateApi, "verification-list"),
        ("/<str:verificationId>", VerificationDetailApi, "verification-detail"),
    ),
    *routes(
        "documents",
        ("", DocumentListUploadApi, "document-list"),
        ("/<str:documentId>", DocumentDetailApi, "document-detail"),
    ),
    *routes(
        "beneficial-owners",
        ("", BeneficialOwnerListCreateApi, "beneficial-owner-list"),
        ("/<str:beneficialOwnerId>", BeneficialOwnerDetailApi, "beneficial-owner-detail"),
    ),
    *routes(
        "",
        ("sandbox/webhooks/test", SandboxWebhookTestApi, "sandbox-webhook-test"),
    ),
    # Money movement.
    *routes(
        "quotes",
        ("", QuoteCreateApi, "quote-create"),
        ("/<str:quoteId>", QuoteDetailApi, "quote-detail"),
        ("/<str:quoteId>/execute", QuoteExecuteApi, "quote-execute"),
        ("/<str:quoteId>/authorize", QuoteAuthorizeApi, "quote-authorize"),
        ("/<str:quoteId>/authorize/resend", QuoteAuthorizeResendApi, "quote-authorize-resend"),
    ),
    # Strong Customer Authentication (fixed sca/factors/... paths before sca/factors/<credentialId>).
    *routes(
        "sca",
        ("/factors", ScaFactorListEnrollApi, "sca-factors"),
        ("/factors/confirm", ScaFactorConfirmApi, "sca-factor-confirm"),
        ("/factors/reset", ScaFactorResetApi, "sca-factor-reset"),
        ("/factors/reset/<str:resetId>", ScaFactorResetDetailApi, "sca-factor-reset-detail"),
        ("/factors/reset/<str:resetId>/complete", ScaFactorResetCompleteApi, "sca-factor-reset-complete"),
        ("/factors/<str:credentialId>", ScaFactorDeleteApi, "sca-factor-delete"),
        ("/login/start", ScaLoginStartApi, "sca-login-start"),
        ("/login/complete", ScaLoginCompleteApi, "sca-login-complete"),
        ("/record-event", ScaRecordEventApi, "sca-record-event"),
    ),
    *routes(
        "transactions",
        ("", TransactionListApi, "transaction-list"),
        ("/<str:transactionId>", TransactionDetailApi, "transaction-detail"),
        ("/<str:transactionId>/confirm", TransactionConfirmApi, "transaction-confirm"),
        ("/<str:transactionId>/cancel", TransactionCancelApi, "transaction-cancel"),
        ("/<str:transactionId>/approve", TransactionApproveApi, "transaction-approve"),
        ("/<str:transactionId>/reject", TransactionRejectApi, "transaction-reject"),
    ),
    *routes(
        "",
        ("transfer-in", TransferInApi, "transfer-in"),
        ("transfer-out", TransferOutApi, "transfer-out"),
        ("exchange-rates", ExchangeRateListApi, "exchange-rates"),
        ("vasps", VaspListApi, "vasp-list"),
        ("discoveries", DiscoveryListApi, "discovery-list"),
        ("uma-providers", UmaProviderListApi, "uma-provider-list"),
        ("crypto/estimate-withdrawal-fee", CryptoWithdrawalFeeEstimateApi, "crypto-withdrawal-fee-estimate"),
    ),
    # Stablecoin issuance.
    *routes(
        "stablecoin-",
        ("provider-accounts", StablecoinLinkListApi, "stablecoin-link-list"),
        ("provider-accounts/<str:stablecoinProviderAccountId>", StablecoinLinkApi, "stablecoin-link"),
        ("operations/<str:stablecoinOperationId>", StablecoinOperationApi, "stablecoin-operation"),
    ),
    *routes(
        "stablecoins",
        ("", StablecoinListRegisterApi, "stablecoin-list"),
        ("/<str:stablecoinId>", StablecoinDetailApi, "stablecoin-detail"),
        ("/<str:stablecoinId>/mints", StablecoinMintApi, "stablecoin-mint"),
        ("/<str:stablecoinId>/burns", StablecoinBurnApi, "stablecoin-burn"),
        ("/<str:stablecoinId>/operations", StablecoinOperationListApi, "stablecoin-operation-list"),
    ),
    *routes(
        "receiver",
        ("/uma/<str:receiverUmaAddress>", ReceiverUmaLookupApi, "receiver-uma"),
        ("/external-account/<str:accountId>", ReceiverExternalAccountLookupApi, "receiver-external-account"),
    ),
    *routes(
        "",
        ("sandbox/internal-accounts/<str:accountId>/fund", SandboxFundApi, "sandbox-fund"),
        ("sandbox/send", SandboxSendApi, "sandbox-send"),
        ("sandbox/uma/receive", SandboxUmaReceiveApi, "sandbox-uma-receive"),
        ("sandbox/clock", SandboxClockApi, "sandbox-clock"),
        ("sandbox/clock/advance", SandboxClockAdvanceApi, "sandbox-clock-advance"),
        ("sandbox/clock/reset", SandboxClockResetApi, "sandbox-clock-reset"),
    ),
    # Agents (fixed agents/... paths before agents/<agentId>); agents/me/... take the agent's own token.
    *routes(
        "agents",
        ("", AgentListCreateApi, "agent-list"),
        ("/approvals", AgentApprovalListApi, "agent-approvals"),
        ("/device-codes/<str:code>/status", DeviceCodeStatusApi, "agent-device-code-status"),
        ("/device-codes/<str:code>/redeem", DeviceCodeRedeemApi, "agent-device-code-redeem"),
        ("/me", me.AgentMeApi, "agent-me"),
        ("/me/transactions", me.AgentTransactionListApi, "agent-me-transactions"),
        ("/me/transactions/<str:transactionId>", me.AgentTransactionDetailApi, "agent-me-transaction"),
        ("/me/quotes", me.AgentQuoteCreateApi, "agent-me-quotes"),
        ("/me/quotes/<str:quoteId>", me.AgentQuoteDetailApi, "agent-me-quote"),
        ("/me/quotes/<str:quoteId>/execute", me.AgentQuoteExecuteApi, "agent-me-quote-execute"),
        ("/me/actions", me.AgentActionListApi, "agent-me-actions"),
        ("/me/actions/<str:actionId>", me.AgentActionDetailApi, "agent-me-action"),
        ("/me/transfer-in", me.AgentTransferInApi, "agent-me-transfer-in"),
        ("/me/transfer-out", me.AgentTransferOutApi, "agent-me-transfer-out"),
        ("/me/internal-accounts", me.AgentInternalAccountListApi, "agent-me-internal-accounts"),
        ("/me/external-accounts", me.AgentExternalAccountListCreateApi, "agent-me-external-accounts"),
        (
            "/me/external-accounts/<str:externalAccountId>",
            me.AgentExternalAccountDetailApi,
            "agent-me-external-account",
        ),
        ("/<str:agentId>", AgentDetailApi, "agent-detail"),
        ("/<str:agentId>/policy", AgentPolicyApi, "agent-policy"),
        ("/<str:agentId>/device-codes", AgentDeviceCodeApi, "agent-device-codes"),
        ("/<str:agentId>/actions/<str:actionId>/approve", AgentActionApproveApi, "agent-action-approve"),
        ("/<str:agentId>/actions/<str:actionId>/reject", AgentActionRejectApi, "agent-action-reject"),
    ),
    *routes(
        "sandbox/cards/<str:id>/simulate/",
        *[(name, view, f"sandbox-card-{name.replace('_', '-')}") for name, view in SIMULATORS.items()],
    ),
]
