"""The site's URLs plus one test-only action endpoint built the way the action endpoints are:
an input serializer, ``api.common.run_action`` around the services, an output."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import path
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import member, run_action
from campaign.models import ChronicleEntry
from config.urls import urlpatterns as site
from dynasties.services import turn_advance


class NoteIn(serializers.Serializer):
    text = serializers.CharField(max_length=100)
    then = serializers.ChoiceField(choices=["ok", "advance", "validation", "forbidden"], default="ok")


class NoteView(APIView):
    def post(self, request: Request, slug: str) -> Response:
        campaign, _role, _dynasty = member(request, slug)
        data = NoteIn(data=request.data)
        data.is_valid(raise_exception=True)

        def act(locked):
            line = ChronicleEntry.objects.create(
                campaign=locked, year=locked.current_year, step=locked.step, kind="note", text=data.validated_data["text"]
            )
            then = data.validated_data["then"]
            if then == "advance":
                turn_advance(campaign=locked, by=request.user)  # at Births: a step out of order
            if then == "validation":
                raise ValidationError({"text": "Not that text."})
            if then == "forbidden":
                raise PermissionDenied("Only the game master may do this.")
            return line

        line = run_action(request, campaign, "Write a note", act)
        return Response({"id": line.pk, "text": line.text}, status=201)


urlpatterns = [path("test-api/<slug:slug>/note/", NoteView.as_view()), *site]
