"""The GM's correction of a die of the current turn (issues 19, 34): a new roll that corrects the wrong
one, and what the roll decided derived again (``dynasties.services.corrections``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, FacesField, MadeSerializer, act, made_data
from api.views.rolls import RollOut
from api.views.sequence.common import rolls_by_pk
from dynasties.services.corrections import correct_roll


class CorrectIn(serializers.Serializer[Any]):
    faces = FacesField(help_text="The faces the dice really showed, e.g. [6, 6] for a 2d6 roll (or give the total).")
    total = serializers.IntegerField(
        min_value=-INT_MAX,
        max_value=INT_MAX,
        required=False,
        allow_null=True,
        help_text="Or the total the dice showed, e.g. 12 for a 2d6 roll, logged as a typed total.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("faces") is None) == (attrs.get("total") is None):
            raise serializers.ValidationError({"faces": "Give the faces the dice showed, or their total (not both)."})
        return attrs

    class Meta:
        ref_name = "CorrectRollRequest"


class CorrectMadeSerializer(MadeSerializer):
    roll = RollOut(help_text="The correction: a new roll typed in by the GM, with the faces given.")
    corrected = RollOut(help_text="The wrong roll, kept in the log.")
    changed = serializers.ListField(
        child=serializers.CharField(),
        help_text="What followed, in words: 'now a child; roll its sex on Births', 'the death is reversed', ...",
    )
    message = serializers.CharField(
        help_text="All of it in one sentence: 'Attempt 1 of X and Y: 3 + 4 = 7 -> 6 + 6 = 12: now a child; roll its sex on "
        "Births.'"
    )

    class Meta:
        ref_name = "CorrectRollResult"


class CorrectView(ActionView):
    api_tag = "rolls"

    @extend_schema(
        request=CorrectIn,
        responses=CorrectMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM corrects the faces of a roll of the current turn (birth, sex, characteristic or survival), whatever "
        "step the turn is at, and "
        "its consequences are derived again forward; 409 naming what depends on it, or when the roll is of an earlier turn",
    )
    def post(self, request: Request, slug: str, roll: int) -> Response:
        data = CorrectIn(data=request.data)
        data.is_valid(raise_exception=True)
        faces, total = data.validated_data.get("faces"), data.validated_data.get("total")
        done, made = act(  # only the GM corrects: the service asks the policy
            request,
            self.viewer.campaign,
            f"Correct roll #{roll}",
            lambda c: correct_roll(campaign=c, roll=roll, faces=faces, total=total, by=request.user),
            dice="faces" if faces is not None else "total",
        )
        rolls = rolls_by_pk([done.roll.pk, done.corrected.pk])
        body = {
            **made_data(made),
            "roll": rolls[done.roll.pk],
            "corrected": rolls[done.corrected.pk],
            "changed": list(done.changes),
            "message": done.message,
        }
        return Response(CorrectMadeSerializer(body, context=self.out_context()).data)
