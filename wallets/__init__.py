"""The embedded-wallet side of the service and the end-user portal (DESIGN.md "Where things live").

wallets builds on `payments`' customers and internal accounts and imports them directly; payments
reaches wallets through `payments/wallet_seam.py` only, with plain calls (no signals), whose
implementations `wallets.apps.WalletsConfig.ready` installs there.
"""
