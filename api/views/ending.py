"""The end of the game (Blood Royale sections 3 and 22): the standings (once the game has ended,
the final table, public to every member; before, each house's money only to whom the policy shows
it: ``campaign.permissions.sees_house_money``), the printable final table, and the GM's actions:
the end's settings, ending by agreement and reopening (``dynasties.services.ending``, which asks the
policy). Each action is one step action: undo covers it."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, MadeSerializer, act, made_data
from api.views.renders import PDF, FileView, _binary, _file
from campaign.models import Campaign
from dynasties.printing import final_table_pdf
from dynasties.services.ending import final_table, game_end, game_end_settings, game_reopen, printable_final_table, settings_text
from rules.ending import MOST_MONEY

INT_MAX = 2**31 - 1


class StandingOut(serializers.Serializer[Any]):
    house = serializers.IntegerField(help_text="The house's id (dynasties/{id}/).")
    name = serializers.CharField()
    crown = serializers.CharField()
    money = serializers.IntegerField(allow_null=True, help_text="Its money; null where it is not yours to see.")
    rank = serializers.IntegerField(allow_null=True, help_text="1: the richest; equal money, equal rank. Null: not shown.")
    winner = serializers.BooleanField(help_text="The game's winner (or, before the end, leading; the GM's view).")
    start = serializers.IntegerField(allow_null=True, help_text="A series: its money at the session's start.")
    increase = serializers.CharField(help_text="A series: its increase ('+50%'; from nothing: 'from 0, +300').")
    series_rank = serializers.IntegerField(allow_null=True)
    series_winner = serializers.BooleanField(help_text="A series: the greatest increase, the session's winner.")

    class Meta:
        ref_name = "Standing"


class StandingsOut(serializers.Serializer[Any]):
    ended = serializers.BooleanField()
    year = serializers.IntegerField(help_text="The year the game ended in (before the end: the turn in play).")
    reason = serializers.CharField(help_text="agreed, target or agreement; empty before the end.")
    reason_text = serializers.CharField()
    whole = serializers.BooleanField(help_text="Whether you see the whole table (ranks, winners, every house's money).")
    currency = serializers.CharField()
    money_wins = serializers.BooleanField(help_text="Whether the ruleset's game is won on money (Blood Royale).")
    series = serializers.BooleanField()
    end_year = serializers.IntegerField(allow_null=True, help_text="The agreed last turn (its year).")
    target = serializers.IntegerField(allow_null=True, help_text="The money target.")
    settings = serializers.CharField(help_text="The end's settings in words.")
    rows = StandingOut(many=True)

    class Meta:
        ref_name = "Standings"


def standings_data(campaign: Campaign, role: str, mine: int | None) -> dict[str, Any]:
    table = final_table(campaign, role=role, mine=mine)
    return {
        **table,
        "year": table.get("year", campaign.current_year),
        "reason": table.get("reason", ""),
        "end_year": campaign.end_year,
        "target": campaign.money_target,
        "settings": settings_text(campaign),
        "rows": [row.__dict__ for row in table["rows"]],
    }


class StandingsMadeSerializer(MadeSerializer):
    standings = StandingsOut()

    class Meta:
        ref_name = "StandingsResult"


class StandingsView(ActionView):
    api_tag = "ending"

    @extend_schema(
        responses=StandingsOut,
        summary="The standings: the final table once the game has ended (every member), the money you may see before",
    )
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        return Response(StandingsOut(standings_data(v.campaign, v.role, v.dynasty)).data)


class EndSettingsIn(serializers.Serializer[Any]):
    end_year = serializers.IntegerField(
        allow_null=True, min_value=-INT_MAX, max_value=INT_MAX, help_text="The agreed last turn (its year); null: none."
    )
    money_target = serializers.IntegerField(
        allow_null=True,
        min_value=-INT_MAX,
        max_value=INT_MAX,
        help_text="Blood Royale: a house with this sum or more after a turn's cashing-in wins (eg 800); null: none.",
    )
    session_start = serializers.DictField(
        child=serializers.IntegerField(min_value=-MOST_MONEY, max_value=MOST_MONEY),
        required=False,
        allow_null=True,
        help_text="A series: each house's money at this session's start, by house id (a house left out: its opening "
        "balance); {} ends the series; absent or null leaves it as it is.",
    )

    class Meta:
        ref_name = "EndSettingsRequest"


def _house_ids(raw: dict[str, int] | None) -> dict[int, int] | None:
    if raw is None:
        return None
    out: dict[int, int] = {}
    for key, value in raw.items():
        try:
            out[int(key)] = value
        except ValueError:
            raise serializers.ValidationError({"session_start": [f"{key!r} is not a house id."]}) from None
    return out


class EndSettingsView(ActionView):
    api_tag = "ending"

    @extend_schema(
        request=EndSettingsIn,
        responses=StandingsMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM sets how the game ends: the agreed last turn, the money target, a series' start",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        data = EndSettingsIn(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        starts = _house_ids(d.get("session_start"))
        _, made = act(
            request,
            v.campaign,
            "Set the end of the game",
            lambda c: game_end_settings(
                campaign=c, end_year=d["end_year"], money_target=d["money_target"], session_start=starts, by=request.user
            ),
        )
        v.campaign.refresh_from_db()
        body = {**made_data(made), "standings": standings_data(v.campaign, v.role, v.dynasty)}
        return Response(StandingsMadeSerializer(body, context=self.out_context()).data)


class EndView(ActionView):
    api_tag = "ending"

    @extend_schema(
        request=None,
        responses=StandingsMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM ends the game now (by agreement, or its end being due): the final table is frozen",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        _, made = act(request, v.campaign, "End the game", lambda c: game_end(campaign=c, by=request.user))
        v.campaign.refresh_from_db()
        body = {**made_data(made), "standings": standings_data(v.campaign, v.role, v.dynasty)}
        return Response(StandingsMadeSerializer(body, context=self.out_context()).data)


class ReopenView(ActionView):
    api_tag = "ending"

    @extend_schema(
        request=None,
        responses=StandingsMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM reopens a game ended by mistake (refused while its end would come again at once)",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        _, made = act(request, v.campaign, "Reopen the game", lambda c: game_reopen(campaign=c, by=request.user))
        v.campaign.refresh_from_db()
        body = {**made_data(made), "standings": standings_data(v.campaign, v.role, v.dynasty)}
        return Response(StandingsMadeSerializer(body, context=self.out_context()).data)


class FinalTablePdfView(FileView):
    @extend_schema(
        summary="The final table (PDF)",
        description="Every house's money, rank and the winner: every member once the game has ended; before, the GM's.",
        responses=_binary(PDF, "The final table, A4."),
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        v = self.viewer
        table = printable_final_table(v.campaign, by=request.user)
        return _file(final_table_pdf(v.campaign, table), PDF, f"final-table-{v.campaign.slug}.pdf")
