"""OAuth: sign in with a linked provider identity, or link one to the signed-in wallet.

Both start the same way: a fresh key pair for the wallet session, `nonce` = SHA-256 hex of its
uncompressed public key, authorization code + PKCE at the provider. The callback checks the ID
token, then either verifies the linked OAUTH credential (sign-in) or creates the credential with the
signed retry and activates it by verifying (link). The session key comes sealed to our key pair.
"""

from __future__ import annotations

import time

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from payments.client import KeySigner, ServiceError, wallet_crypto
from wallets.portal import custody, oauth, sealing, throttle
from wallets.portal.auth import auth_is_fresh, current_account, login_complete, reauth_redirect, safe_next
from wallets.portal.http import service_errors
from wallets.portal.models import PortalOAuthLink
from wallets.portal.service import service_client
from wallets.portal.views.login import login_page
from wallets.portal.wording import explain, wait_words

PENDING = "portal_oauth"
PENDING_SECONDS = 600
_KEY_PURPOSE = "portal-pending-oauth-key"


@service_errors
@require_POST
def oauth_login_view(request: HttpRequest) -> HttpResponse:
    """Start at the provider. `intent` is `login` (signed out) or `link` (add it to my wallet)."""
    if not oauth.enabled():
        raise Http404("OAuth sign-in is not configured")
    intent = "link" if request.POST.get("intent") == "link" else "login"
    next_url = safe_next(request, request.POST.get("next"))
    if intent == "link":
        security = reverse("portal:security")
        if current_account(request) is None or not auth_is_fresh(request):
            return reauth_redirect(request, security)
        next_url = security
    wait = throttle.hit(throttle.LOGIN_PER_IP, throttle.client_ip(request))
    if wait:
        return login_page(
            request, error=f"Too many sign-in attempts. Try again {wait_words(wait)}.", status=429
        )
    key = KeySigner.generate()
    redirect_uri = request.build_absolute_uri(reverse("portal:oauth-callback"))
    try:
        url, flow = oauth.authorization_start(
            redirect_uri=redirect_uri, nonce=oauth.nonce_for(key.public_key_hex_uncompressed)
        )
    except oauth.OAuthFailed as exc:
        return login_page(request, error=exc.message, status=502)
    request.session[PENDING] = {
        **flow,
        "intent": intent,
        "next": next_url,
        "redirect_uri": redirect_uri,
        "key": sealing.seal(key.private_key_hex.encode("ascii"), purpose=_KEY_PURPOSE),
        "at": time.time(),
    }
    return redirect(url)


def _failed(request: HttpRequest, message: str, intent: str) -> HttpResponse:
    if intent == "link" and current_account(request) is not None:
        messages.error(request, message)
        return redirect("portal:security")
    return login_page(request, error=message, status=400)


@service_errors
@never_cache
@require_GET
def oauth_callback_view(request: HttpRequest) -> HttpResponse:
    pending = request.session.pop(PENDING, None)
    intent = pending.get("intent", "login") if pending else "login"
    if (
        not pending
        or time.time() - pending["at"] > PENDING_SECONDS
        or request.GET.get("state") != pending["state"]
    ):
        return _failed(request, "That sign-in did not complete. Please start again.", intent)
    if request.GET.get("error") or not request.GET.get("code"):
        return _failed(request, "The sign-in was cancelled at the provider.", intent)
    key = KeySigner(sealing.unseal(pending["key"], purpose=_KEY_PURPOSE).decode("ascii"))
    try:
        token = oauth.authorization_finish(
            code=request.GET["code"],
            redirect_uri=pending["redirect_uri"],
            code_verifier=pending["code_verifier"],
            nonce=oauth.nonce_for(key.public_key_hex_uncompressed),
        )
    except oauth.OAuthFailed as exc:
        return _failed(request, exc.message, intent)
    client = service_client()

    if intent == "link":
        account = current_account(request)
        signer = custody.session_signer(request)
        if account is None or signer is None or not auth_is_fresh(request):
            return reauth_redirect(request, reverse("portal:security"))
        linked = PortalOAuthLink.objects.filter(issuer=token.issuer, subject=token.subject).first()
        if linked is not None and linked.account_id != account.pk:
            return _failed(request, "This sign-in is already linked to another wallet.", intent)
        try:
            credential = client.credentials.create(
                account.wallet_account_id, "OAUTH", oidc_token=token.raw, signer=signer
            )
        except ServiceError as exc:
            if custody.session_key_rejected(request, exc):
                return reauth_redirect(request, reverse("portal:security"))
            if exc.status in (400, 401):
                return _failed(request, f"The sign-in could not be linked. {explain(exc)}", intent)
            raise
        PortalOAuthLink.objects.update_or_create(
            issuer=token.issuer,
            subject=token.subject,
            defaults={"account": account, "credential_id": credential.id, "email": token.email},
        )
        credential_id = credential.id
    else:
        linked = (
            PortalOAuthLink.objects.select_related("account")
            .filter(issuer=token.issuer, subject=token.subject)
            .first()
        )
        if linked is None:
            return _failed(
                request,
                "This sign-in is not linked to a wallet yet. Sign in another way, then link it on the Security page.",
                intent,
            )
        account, credential_id = linked.account, linked.credential_id

    # Sign-in, or the activation of a just-linked credential: verify, then open the session key.
    try:
        session = client.credentials.verify_oauth(credential_id, token.raw, key.public_key_hex_uncompressed)
        session_key = wallet_crypto.credential_bundle_open(
            session.encrypted_session_signing_key or "", key.private_key_hex
        )
    except ServiceError as exc:
        if exc.status in (400, 401, 404):
            return _failed(request, f"The sign-in was not accepted. {explain(exc)}", intent)
        raise
    except wallet_crypto.WalletCryptoError:
        return _failed(request, "The service's answer could not be opened. Please try again.", intent)
    login_complete(
        request,
        account=account,
        session=session,
        private_key_hex=session_key.hex(),
        credential_id=credential_id,
        credential_type="OAUTH",
    )
    if intent == "link":
        messages.success(request, f"You can now sign in with {token.email or 'this provider'}.")
    return redirect(safe_next(request, pending["next"]))
