"""The currencies the service knows: code, name, symbol and decimals (amounts are integers in 10^-decimals)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Currency:
    code: str
    name: str
    symbol: str
    decimals: int
    crypto: bool = False

    def as_dict(self) -> dict:
        return {"code": self.code, "name": self.name, "symbol": self.symbol, "decimals": self.decimals}


_TABLE = [
    Currency("USD", "United States Dollar", "$", 2),
    Currency("EUR", "Euro", "€", 2),
    Currency("GBP", "Pound Sterling", "£", 2),
    Currency("MXN", "Mexican Peso", "$", 2),
    Currency("BRL", "Brazilian Real", "R$", 2),
    Currency("DKK", "Danish Krone", "kr", 2),
    Currency("INR", "Indian Rupee", "₹", 2),
    Currency("NGN", "Nigerian Naira", "₦", 2),
    Currency("CAD", "Canadian Dollar", "$", 2),
    Currency("HKD", "Hong Kong Dollar", "HK$", 2),
    Currency("IDR", "Indonesian Rupiah", "Rp", 2),
    Currency("MYR", "Malaysian Ringgit", "RM", 2),
    Currency("PHP", "Philippine Peso", "₱", 2),
    Currency("SGD", "Singapore Dollar", "S$", 2),
    Currency("THB", "Thai Baht", "฿", 2),
    Currency("VND", "Vietnamese Dong", "₫", 0),
    Currency("AED", "UAE Dirham", "د.إ", 2),
    Currency("KES", "Kenyan Shilling", "KSh", 2),
    Currency("MWK", "Malawian Kwacha", "MK", 2),
    Currency("RWF", "Rwandan Franc", "FRw", 0),
    Currency("TZS", "Tanzanian Shilling", "TSh", 2),
    Currency("UGX", "Ugandan Shilling", "USh", 0),
    Currency("XOF", "West African CFA Franc", "CFA", 0),
    Currency("XAF", "Central African CFA Franc", "FCFA", 0),
    Currency("ZAR", "South African Rand", "R", 2),
    Currency("ZMW", "Zambian Kwacha", "ZK", 2),
    Currency("BWP", "Botswana Pula", "P", 2),
    Currency("BDT", "Bangladeshi Taka", "৳", 2),
    Currency("ARS", "Argentine Peso", "$", 2),
    Currency("COP", "Colombian Peso", "$", 2),
    Currency("EGP", "Egyptian Pound", "E£", 2),
    Currency("GHS", "Ghanaian Cedi", "GH₵", 2),
    Currency("GTQ", "Guatemalan Quetzal", "Q", 2),
    Currency("HTG", "Haitian Gourde", "G", 2),
    Currency("JMD", "Jamaican Dollar", "J$", 2),
    Currency("PKR", "Pakistani Rupee", "₨", 2),
    Currency("CNY", "Chinese Yuan", "¥", 2),
    Currency("BTC", "Bitcoin", "₿", 8, crypto=True),
    Currency("USDC", "USD Coin", "USDC", 6, crypto=True),
    Currency("USDT", "Tether USD", "USDT", 6, crypto=True),
]

CURRENCIES: dict[str, Currency] = {c.code: c for c in _TABLE}


def get(code: str) -> Currency | None:
    return CURRENCIES.get(code)
