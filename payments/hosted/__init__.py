"""The hosted onboarding pages (`/onboarding/<token>/…`): the browser flow a KYC link opens.

These are the service's own pages: they call the domain functions directly (the same ones the API
calls) and validate input with the API's serializers, so a page shows the errors the API would give.
"""
