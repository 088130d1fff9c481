"""A local OpenID Connect provider for development and tests (not part of the service).

Served at `/dev-oidc/` when `DEV_OIDC_ENABLED` (sandbox default). The protocol (authorization code
with PKCE S256, client authentication, ID tokens) is authlib's; this package supplies storage, keys,
clients from settings and a login page where any email address signs in.
"""
