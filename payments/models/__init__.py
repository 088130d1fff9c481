from payments.models.platforms import ApiToken, Platform

__all__ = ["ApiToken", "Platform"]
