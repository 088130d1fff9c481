"""Quotes (being split along its sections; see `payments.quotes.resolve`)."""

from payments.quotes.resolve import (
    QuoteRequest,
    quote_create,
    quote_execute,
    quote_funds_received,
    quote_get,
    quote_release,
)

__all__ = [
    "QuoteRequest",
    "quote_create",
    "quote_execute",
    "quote_funds_received",
    "quote_get",
    "quote_release",
]
