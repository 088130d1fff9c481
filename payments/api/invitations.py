from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.schema import operations, path_parameter
from payments.invitations import invitation_cancel, invitation_claim, invitation_create, invitation_get
from payments.wire.invitations import (
    UmaInvitationClaimSerializer,
    UmaInvitationCreateSerializer,
    UmaInvitationSerializer,
    render_invitation,
)

TAGS = ["Invitations"]
_operation = operations(TAGS)
_on_code = operations(TAGS, parameters=[path_parameter("invitationCode", "The code of the invitation")])


class InvitationCreateApi(APIView):
    @_operation(
        "createInvitation", body=UmaInvitationCreateSerializer, responses={201: UmaInvitationSerializer}
    )
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        invitation = invitation_create(
            platform=request.auth.platform,
            inviter_uma=body["inviterUma"],
            first_name=body.get("firstName", ""),
            amount_to_send=body.get("amountToSend"),
            expires_at=body.get("expiresAt"),
        )
        return Response(render_invitation(invitation), status=201)


class InvitationDetailApi(APIView):
    @_on_code("getInvitation", responses=UmaInvitationSerializer)
    def get(self, request: Request, invitationCode: str) -> Response:
        return Response(render_invitation(invitation_get(code=invitationCode)))


class InvitationClaimApi(APIView):
    @_on_code("claimInvitation", body=UmaInvitationClaimSerializer, responses=UmaInvitationSerializer)
    def post(self, request: Request, invitationCode: str, body: dict[str, Any]) -> Response:
        invitation = invitation_claim(
            platform=request.auth.platform, code=invitationCode, invitee_uma=body["inviteeUma"]
        )
        return Response(render_invitation(invitation))


class InvitationCancelApi(APIView):
    @_on_code("cancelInvitation", request=None, responses=UmaInvitationSerializer)
    def post(self, request: Request, invitationCode: str) -> Response:
        invitation = invitation_cancel(platform=request.auth.platform, code=invitationCode)
        return Response(render_invitation(invitation))
