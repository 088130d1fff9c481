"""Statuses and failure reasons as a person reads them on the money pages: words, never the wire's codes."""

from __future__ import annotations

from payments.templatetags.portal_money import failure_sentence, status_name, status_tone


def test_statuses_read_as_words_with_a_badge_tone():
    assert status_name("PENDING_AUTHORIZATION") == "Waiting for your approval"
    assert status_tone("PENDING_AUTHORIZATION") == "warning"
    assert (status_name("COMPLETED"), status_tone("COMPLETED")) == ("Completed", "success")
    assert (status_name("FAILED"), status_tone("FAILED")) == ("Failed", "danger")
    # A status the portal does not know yet (the set is open) still reads as words.
    assert (status_name("ON_HOLD"), status_tone("ON_HOLD")) == ("On hold", "neutral")


def test_an_unknown_failure_reason_does_not_show_its_code():
    assert failure_sentence("SOMETHING_NEW") == "The payment failed."
    assert "compliance check" in failure_sentence("COMPLIANCE_REJECTED")
