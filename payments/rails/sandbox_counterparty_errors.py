"""Sandbox UMA counterparties that misbehave: one address at `sandbox.uma.example` per error code the
reference gives a UMA lookup or quote whose counterparty fails, `$error.<code, lower-case, with
hyphens>` (`$error.cert-chain-invalid@sandbox.uma.example` → 400 CERT_CHAIN_INVALID).

An error of the LOOKUP stage (the receiver's LNURLP answer and its keys) answers both
`GET /receiver/uma/{address}` and `POST /quotes`; one of the PAY_REQUEST stage (the receiver's quote,
after a lookup that succeeds in USD) answers `POST /quotes` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from payments.errors import (
    BadRequest,
    FailedDependency,
    ResourceNotFound,
    ServiceError,
    UmaVersionUnsupported,
)

type Stage = Literal["LOOKUP", "PAY_REQUEST"]


@dataclass(frozen=True)
class CounterpartyError:
    stage: Stage
    status: int
    code: str
    message: str

    @property
    def local_part(self) -> str:
        return "error." + self.code.lower().replace("_", "-")

    def error(self, address: str) -> ServiceError:
        if self.status == 404:
            return ResourceNotFound("Uma", self.message)
        kind = {400: BadRequest, 412: UmaVersionUnsupported, 424: FailedDependency}[self.status]
        return kind(self.message, code=self.code, umaAddress=address)


COUNTERPARTY_ERRORS: Final = tuple(
    CounterpartyError(*row)
    for row in (
        ("LOOKUP", 400, "INVALID_RECEIVER", "The counterparty says the receiver is invalid"),
        ("LOOKUP", 400, "CERT_CHAIN_INVALID", "The counterparty's certificate chain is invalid"),
        ("LOOKUP", 400, "CERT_CHAIN_EXPIRED", "The counterparty's certificate chain has expired"),
        ("LOOKUP", 400, "INVALID_PUBKEY_FORMAT", "The counterparty's public key format is invalid"),
        ("LOOKUP", 400, "MISSING_REQUIRED_UMA_PARAMETERS", "The counterparty's answer lacks required UMA parameters"),
        ("LOOKUP", 400, "SENDER_NOT_ACCEPTED", "The counterparty does not accept payments from this sender"),
        ("LOOKUP", 400, "INVALID_TIMESTAMP", "The counterparty's signed answer has an invalid timestamp"),
        ("LOOKUP", 400, "INVALID_NONCE", "The counterparty's signed answer has an invalid nonce"),
        ("LOOKUP", 400, "PARSE_LNURLP_RESPONSE_ERROR", "The counterparty's LNURLP answer could not be parsed"),
        ("LOOKUP", 400, "LOOKUP_REQUEST_FAILED", "The lookup request to the counterparty failed"),
        ("LOOKUP", 404, "UMA_NOT_FOUND", "No receiver exists at this address"),
        ("LOOKUP", 412, "UNSUPPORTED_UMA_VERSION", "The counterparty does not support this UMA version"),
        ("LOOKUP", 424, "LNURLP_REQUEST_FAILED", "The counterparty did not answer the LNURLP request"),
        ("LOOKUP", 424, "COUNTERPARTY_PUBKEY_FETCH_ERROR", "The counterparty's public keys could not be fetched"),
        ("LOOKUP", 424, "NO_COMPATIBLE_UMA_VERSION", "The counterparty shares no UMA version with the service"),
        ("PAY_REQUEST", 400, "QUOTE_REQUEST_FAILED", "The counterparty's quote failed; try again"),
        ("PAY_REQUEST", 400, "INVALID_PAYREQ_RESPONSE", "The counterparty's pay request answer is invalid"),
        ("PAY_REQUEST", 400, "PARSE_PAYREQ_RESPONSE_ERROR", "The counterparty's pay request answer could not be parsed"),
        ("PAY_REQUEST", 424, "PAYREQ_REQUEST_FAILED", "The counterparty did not answer the pay request"),
    )
)  # fmt: skip

_BY_LOCAL_PART: Final = {e.local_part: e for e in COUNTERPARTY_ERRORS}


def counterparty_error(local_part: str, stage: Stage) -> CounterpartyError | None:
    """The error a sandbox address's counterparty answers at `stage`, if it is one of these."""
    found = _BY_LOCAL_PART.get(local_part)
    return found if found is not None and found.stage == stage else None


def counterparty_error_address_known(local_part: str) -> bool:
    return local_part in _BY_LOCAL_PART
