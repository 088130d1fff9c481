"""Everything money on the service side (DESIGN.md "Where things live").

`wallets` builds on payments' customers and internal accounts; payments imports no `wallets` module:
it reaches wallets through one module only, `payments/wallet_seam.py` (stamp check, the WebAuthn
checks SCA shares, the contact-change guard, wallet bootstrap), as plain calls whose implementations
wallets installs there when it is ready: no signal crosses the apps.
"""
