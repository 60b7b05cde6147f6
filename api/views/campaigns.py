"""Campaigns (the caller's) and their members."""

from __future__ import annotations

from typing import Any

from django.db.models import F, FilteredRelation, Q, QuerySet, Value
from django.db.models.fields import CharField, IntegerField
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import CampaignReadViewSet, CampaignScoped, member
from api.filters import FilterSet, IntegerFilter
from campaign.models import Campaign, Membership, Role, Setup, Step
from campaign.password_reset import password_reset_link
from rules import RULESET_LABELS

RESOURCES = [
    "memberships",
    "dynasties",
    "characters",
    "marriages",
    "reigns",
    "titles",
    "contracts",
    "ledger",
    "balances",
    "rolls",
    "chronicle",
]


class CampaignOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    url = serializers.SerializerMethodField()
    ruleset = serializers.ChoiceField(choices=list(RULESET_LABELS.items()))
    step = serializers.ChoiceField(choices=Step.choices, help_text="Where the current turn stands.")
    step_label = serializers.CharField(source="get_step_display")
    turn_number = serializers.IntegerField()
    role = serializers.ChoiceField(choices=Role.choices, source="viewer_role", help_text="Your role in the campaign.")
    dynasty = serializers.IntegerField(source="viewer_dynasty", allow_null=True, help_text="Your dynasty (players).")
    setup = serializers.ChoiceField(
        choices=Setup.choices,
        help_text="ready: open for play; building: its prehistory is still being played (every write is refused, "
        "409 not_open); failed: its set-up failed or was lost (its GM retries or deletes it on its page).",
    )

    class Meta:
        model = Campaign
        fields = [
            "slug",
            "url",
            "name",
            "ruleset",
            "start_year",
            "current_year",
            "turn_length",
            "turn_number",
            "step",
            "step_label",
            "optional_rules",
            "allow_overdraft",
            "dice_entry",
            "auto_pass_certain",
            "setup",
            "created_at",
            "role",
            "dynasty",
        ]
        ref_name = "Campaign"

    def get_url(self, obj: Campaign) -> str:
        url: str = self.context["request"].build_absolute_uri(reverse("api:campaign-detail", kwargs={"slug": obj.slug}))
        return url


class CampaignDetailOut(CampaignOut):
    links = serializers.SerializerMethodField(help_text="The campaign's resources.")

    class Meta(CampaignOut.Meta):
        fields = [*CampaignOut.Meta.fields, "links"]
        ref_name = "CampaignDetail"

    @extend_schema_field({"type": "object", "additionalProperties": {"type": "string", "format": "uri"}})
    def get_links(self, obj: Campaign) -> dict[str, str]:
        request = self.context["request"]
        return {name: request.build_absolute_uri(reverse(f"api:{name}-list", kwargs={"slug": obj.slug})) for name in RESOURCES}


class CampaignViewSet(viewsets.ReadOnlyModelViewSet):  # type: ignore[type-arg]
    """The campaigns you are a member of, with your role; a campaign's current year and step."""

    api_tag = "campaigns"
    queryset = Campaign.objects.all()
    serializer_class = CampaignOut
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Campaign]:
        user = self.request.user
        qs = Campaign.objects.order_by("name", "pk")
        if getattr(self, "swagger_fake_view", False) or not user.is_authenticated:
            return qs.none()
        if user.is_superuser:
            return qs.annotate(viewer_role=Value(Role.GM.value, CharField()), viewer_dynasty=Value(None, IntegerField()))
        return (
            qs.annotate(mine=FilteredRelation("memberships", condition=Q(memberships__user=user)))
            .filter(mine__isnull=False)
            .annotate(viewer_role=F("mine__role"), viewer_dynasty=F("mine__seat__house"))
        )

    def get_serializer_class(self) -> type[serializers.Serializer]:  # type: ignore[type-arg]
        return CampaignDetailOut if self.action == "retrieve" else CampaignOut

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        campaign, role, dynasty = member(request, kwargs["slug"])
        campaign.viewer_role, campaign.viewer_dynasty = role, dynasty  # type: ignore[attr-defined]
        return Response(self.get_serializer(campaign).data)


class MembershipOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    username = serializers.CharField(source="user.get_username")
    role = serializers.ChoiceField(choices=Role.choices)
    dynasty = serializers.IntegerField(
        source="seat_house", allow_null=True, read_only=True, help_text="The house he plays or is tied to (none: no house)."
    )

    class Meta:
        model = Membership
        fields = ["id", "user", "username", "role", "dynasty"]
        ref_name = "Membership"


class MembershipFilterSet(FilterSet):
    dynasty = IntegerFilter(field_name="seat__house", help_text="Members playing this dynasty.")

    class Meta:
        model = Membership
        fields = ["role"]


class MembershipViewSet(CampaignReadViewSet):
    """Who plays which dynasty, who runs the campaign and who watches."""

    api_tag = "campaigns"
    queryset = Membership.objects.select_related("user").annotate(seat_house=F("seat__house")).order_by("pk")
    serializer_class = MembershipOut
    filterset_class = MembershipFilterSet


class PasswordResetOut(serializers.Serializer):  # type: ignore[type-arg]
    user = serializers.IntegerField(source="user.pk")
    username = serializers.CharField(source="user.get_username")
    link = serializers.URLField(help_text="Opens Django's set-a-new-password page; it works once.")
    expires_at = serializers.DateTimeField()

    class Meta:
        ref_name = "PasswordResetLink"


class PasswordResetView(CampaignScoped, APIView):
    """The GM's one-time password-reset link for a member of his table (``campaign.password_reset``)."""

    api_tag = "campaigns"

    @extend_schema(
        summary="A one-time password-reset link for a member (GM)",
        description=(
            "For a player or an observer who forgot his password: the link sets a new one and works once (until "
            "PASSWORD_RESET_TIMEOUT, 3 days). Only the GM, and only for a member who sits at no table he does not run "
            "(never a superuser, a staff account or another table's GM): 403 otherwise. Nothing is stored; the link is "
            "in this answer only."
        ),
        request=None,
        responses={201: PasswordResetOut},
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        made = password_reset_link(campaign=self.viewer.campaign, membership=pk, by=request.user)
        out = {"user": made.user, "link": request.build_absolute_uri(made.path), "expires_at": made.expires_at}
        return Response(PasswordResetOut(out).data, status=201)
