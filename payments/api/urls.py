from django.urls import path

from payments.api.beneficial_owners import BeneficialOwnerDetailApi, BeneficialOwnerListCreateApi
from payments.api.bulk_uploads import BulkCustomerCsvUploadApi, BulkCustomerImportJobApi
from payments.api.config import ConfigApi
from payments.api.customers import CustomerDetailApi, CustomerListCreateApi, EndUserTermsApi
from payments.api.documents import DocumentDetailApi, DocumentListUploadApi
from payments.api.exchange_rates import ExchangeRateListApi
from payments.api.external_accounts import (
    CustomerExternalAccountDetailApi,
    CustomerExternalAccountListCreateApi,
    PlatformExternalAccountDetailApi,
    PlatformExternalAccountListCreateApi,
)
from payments.api.internal_accounts import CustomerInternalAccountListApi, PlatformInternalAccountListApi
from payments.api.kyc_links import CustomerKycLinkApi
from payments.api.quotes import QuoteCreateApi, QuoteDetailApi, QuoteExecuteApi
from payments.api.receivers import ReceiverExternalAccountLookupApi, ReceiverUmaLookupApi
from payments.api.sandbox import SandboxFundApi, SandboxSendApi, SandboxUmaReceiveApi
from payments.api.sca import (
    QuoteAuthorizeApi,
    QuoteAuthorizeResendApi,
    ScaFactorConfirmApi,
    ScaFactorDeleteApi,
    ScaFactorListEnrollApi,
    ScaFactorResetApi,
    ScaFactorResetCompleteApi,
    ScaFactorResetDetailApi,
    ScaLoginCompleteApi,
    ScaLoginStartApi,
    ScaRecordEventApi,
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

urlpatterns = [
    path("config", ConfigApi.as_view(), name="config"),
    path("tokens", TokenListCreateApi.as_view(), name="token-list"),
    path("tokens/<str:tokenId>", TokenDetailApi.as_view(), name="token-detail"),
    path("customers", CustomerListCreateApi.as_view(), name="customer-list"),
    # Fixed customers/... paths come before customers/<customerId>.
    path("customers/end-user-terms", EndUserTermsApi.as_view(), name="end-user-terms"),
    path(
        "customers/internal-accounts",
        CustomerInternalAccountListApi.as_view(),
        name="customer-internal-accounts",
    ),
    path("customers/bulk/csv", BulkCustomerCsvUploadApi.as_view(), name="customer-bulk-csv"),
    path("customers/bulk/jobs/<str:jobId>", BulkCustomerImportJobApi.as_view(), name="customer-bulk-job"),
    path(
        "customers/external-accounts",
        CustomerExternalAccountListCreateApi.as_view(),
        name="customer-external-account-list",
    ),
    path(
        "customers/external-accounts/<str:externalAccountId>",
        CustomerExternalAccountDetailApi.as_view(),
        name="customer-external-account-detail",
    ),
    path("customers/<str:customerId>", CustomerDetailApi.as_view(), name="customer-detail"),
    path("customers/<str:customerId>/kyc-link", CustomerKycLinkApi.as_view(), name="customer-kyc-link"),
    path(
        "platform/internal-accounts",
        PlatformInternalAccountListApi.as_view(),
        name="platform-internal-accounts",
    ),
    path(
        "platform/external-accounts",
        PlatformExternalAccountListCreateApi.as_view(),
        name="platform-external-account-list",
    ),
    path(
        "platform/external-accounts/<str:externalAccountId>",
        PlatformExternalAccountDetailApi.as_view(),
        name="platform-external-account-detail",
    ),
    path("verifications", VerificationListCreateApi.as_view(), name="verification-list"),
    path("verifications/<str:verificationId>", VerificationDetailApi.as_view(), name="verification-detail"),
    path("documents", DocumentListUploadApi.as_view(), name="document-list"),
    path("documents/<str:documentId>", DocumentDetailApi.as_view(), name="document-detail"),
    path("beneficial-owners", BeneficialOwnerListCreateApi.as_view(), name="beneficial-owner-list"),
    path(
        "beneficial-owners/<str:beneficialOwnerId>",
        BeneficialOwnerDetailApi.as_view(),
        name="beneficial-owner-detail",
    ),
    path("sandbox/webhooks/test", SandboxWebhookTestApi.as_view(), name="sandbox-webhook-test"),
    # Money movement.
    path("quotes", QuoteCreateApi.as_view(), name="quote-create"),
    path("quotes/<str:quoteId>", QuoteDetailApi.as_view(), name="quote-detail"),
    path("quotes/<str:quoteId>/execute", QuoteExecuteApi.as_view(), name="quote-execute"),
    path("quotes/<str:quoteId>/authorize", QuoteAuthorizeApi.as_view(), name="quote-authorize"),
    path(
        "quotes/<str:quoteId>/authorize/resend",
        QuoteAuthorizeResendApi.as_view(),
        name="quote-authorize-resend",
    ),
    # Strong Customer Authentication (fixed sca/factors/... paths before sca/factors/<credentialId>).
    path("sca/factors", ScaFactorListEnrollApi.as_view(), name="sca-factors"),
    path("sca/factors/confirm", ScaFactorConfirmApi.as_view(), name="sca-factor-confirm"),
    path("sca/factors/reset", ScaFactorResetApi.as_view(), name="sca-factor-reset"),
    path(
        "sca/factors/reset/<str:resetId>", ScaFactorResetDetailApi.as_view(), name="sca-factor-reset-detail"
    ),
    path(
        "sca/factors/reset/<str:resetId>/complete",
        ScaFactorResetCompleteApi.as_view(),
        name="sca-factor-reset-complete",
    ),
    path("sca/factors/<str:credentialId>", ScaFactorDeleteApi.as_view(), name="sca-factor-delete"),
    path("sca/login/start", ScaLoginStartApi.as_view(), name="sca-login-start"),
    path("sca/login/complete", ScaLoginCompleteApi.as_view(), name="sca-login-complete"),
    path("sca/record-event", ScaRecordEventApi.as_view(), name="sca-record-event"),
    path("transactions", TransactionListApi.as_view(), name="transaction-list"),
    path("transactions/<str:transactionId>", TransactionDetailApi.as_view(), name="transaction-detail"),
    path(
        "transactions/<str:transactionId>/confirm",
        TransactionConfirmApi.as_view(),
        name="transaction-confirm",
    ),
    path(
        "transactions/<str:transactionId>/cancel", TransactionCancelApi.as_view(), name="transaction-cancel"
    ),
    path(
        "transactions/<str:transactionId>/approve",
        TransactionApproveApi.as_view(),
        name="transaction-approve",
    ),
    path(
        "transactions/<str:transactionId>/reject", TransactionRejectApi.as_view(), name="transaction-reject"
    ),
    path("transfer-in", TransferInApi.as_view(), name="transfer-in"),
    path("transfer-out", TransferOutApi.as_view(), name="transfer-out"),
    path("exchange-rates", ExchangeRateListApi.as_view(), name="exchange-rates"),
    path("receiver/uma/<str:receiverUmaAddress>", ReceiverUmaLookupApi.as_view(), name="receiver-uma"),
    path(
        "receiver/external-account/<str:accountId>",
        ReceiverExternalAccountLookupApi.as_view(),
        name="receiver-external-account",
    ),
    path("sandbox/internal-accounts/<str:accountId>/fund", SandboxFundApi.as_view(), name="sandbox-fund"),
    path("sandbox/send", SandboxSendApi.as_view(), name="sandbox-send"),
    path("sandbox/uma/receive", SandboxUmaReceiveApi.as_view(), name="sandbox-uma-receive"),
]
