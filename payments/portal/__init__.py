"""The URLs of the portal's money pages (the pages themselves are in `wallets.portal.views`)."""
