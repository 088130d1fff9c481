"""The portal's money pages: home (balances, receiving, history), send, quote confirmation and
transaction status. Browser side only: everything goes through `payments.client`."""
