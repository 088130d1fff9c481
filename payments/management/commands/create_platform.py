import json

from django.core.management.base import BaseCommand

from payments.platforms import platform_create


class Command(BaseCommand):
    help = "Create a sandbox platform with an API token holding every permission; prints its credentials as JSON."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--name", required=True)

    def handle(self, *args, name: str, **options) -> None:
        platform, token, secret = platform_create(name=name)
        self.stdout.write(
            json.dumps(
                {"platformId": platform.public_id, "clientId": token.client_id, "clientSecret": secret}
            )
        )
