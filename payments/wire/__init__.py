"""The wire layer: the interface's resource shapes, rendered in one place.

API views, webhook events, the hosted onboarding pages, bulk import and the wallet side all build
their bodies here, so a resource looks the same wherever it leaves the service. Domain modules may
import this package; it never imports `payments.api` or `wallets.api` (tests/project/test_layering.py).
"""
