from payments.models.platforms import ApiToken, FeeConfig, Platform

__all__ = ["ApiToken", "FeeConfig", "Platform"]
