"""The end-user portal's wallet pages: sign-up, sign-in (email/SMS code, passkey, OAuth), security.

An integrator of the service (DESIGN.md): it reaches the service only through `payments.client`
and never imports the service's domain modules or models. It keeps each user's session signing
key on the server (`custody`), sealed with the portal's own key (`sealing`).
"""
