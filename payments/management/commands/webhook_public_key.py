from django.core.management.base import BaseCommand

from payments.service_keys import WEBHOOK_SIGNING, service_public_key_pem


class Command(BaseCommand):
    help = "Print the public key (PEM) that verifies the X-Service-Signature header of webhooks."

    def handle(self, *args, **options) -> None:
        self.stdout.write(service_public_key_pem(WEBHOOK_SIGNING), ending="")
