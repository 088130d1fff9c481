"""The end-user portal, whole: every page a wallet user sees (sign-up, sign-in by email/SMS code,
passkey or OAuth, security; the money pages: balances and history, send, quote confirmation, a
payment's status and receipt; Strong Customer Authentication: approval steps, the SCA login and
payment security) in `views/`, its forms, its template tags (`templatetags/`), its templates
(`templates/wallets/portal/`) and one URL namespace, `portal` (`urls.py`). Sign-in and the SCA login
share one code-entry step (`code_step`).

An integrator of the service (DESIGN.md): it reaches the service only through `payments.client`
and never imports the service's domain modules or models. It keeps each user's session signing
key on the server (`custody`), sealed with the portal's own key (`sealing`).
"""
