"""Validation of an external account's ``accountInfo`` object (moving into submodules; see ``account_types``)."""

from payments.account_info.account_types import *  # noqa: F403
from payments.account_info.account_types import (  # noqa: F401
    ABA_ROUTING_NUMBER,
    CBU_CVU,
    CLABE,
    IBAN,
    __all__,
)
