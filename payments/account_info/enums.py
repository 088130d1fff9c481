"""The reference's enums that callers outside ``accountInfo`` validation use too."""

from __future__ import annotations

from typing import Final

PAYMENT_RAILS: Final = (
    "ACH", "ACH_COLOMBIA", "BANK_TRANSFER", "BRE_B", "CIPS", "FAST", "FASTER_PAYMENTS", "FEDNOW",
    "INSTAPAY", "MOBILE_MONEY", "NEFT", "PAYNOW", "PESONET", "PIX", "RTGS", "RTP", "SEPA",
    "SEPA_INSTANT", "SPEI", "SWIFT", "UNIONPAY", "UPI", "WIRE",
)  # fmt: skip

BENEFICIARY_VERIFICATION_STATUSES: Final = (
    "MATCHED", "PARTIAL_MATCH", "NOT_MATCHED", "UNSUPPORTED", "CHECKED_BY_RECEIVING_FI", "PENDING",
)  # fmt: skip
