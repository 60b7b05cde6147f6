"""The API's door to the table's events (``campaign.table_events``, issue 31).

GET  campaigns/{slug}/events/         the events of the campaign's rules offered to you, with their
                                      fields and what each field offers you now
POST campaigns/{slug}/events/{key}/   record one: its body is the event's fields (one endpoint and one
                                      request schema per event, made from its declaration)

Each endpoint is made from its event's declaration: the request serializer from its fields (a field
that offers choices takes only what it offers the caller, as the page's form does), the call from its
``run`` inside one step action (``api.views.actions.act``: the ``Idempotency-Key``, the undo
checkpoint, the rolls and chronicle lines it made). The services decide and refuse; nothing here
knows an event."""

from __future__ import annotations

from typing import Any, ClassVar

from django.http import Http404
from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import refuse_replay
from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, FacesField, IdField, MadeSerializer, act, check_faces, made_data
from campaign.permissions import Seat, seat_of
from campaign.table_events import IDS, WHEN, Field, Kind, TableEvent, available, events, offered_to
from rules.dice import DiceSpec

MONEY_MAX = 1_000_000
MAX_PEOPLE = 200


class ChoiceOut(serializers.Serializer[Any]):
    value = serializers.JSONField(help_text="What to send: an id, a crown's name or a word.")
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field "label", not the base class's
    note = serializers.CharField(help_text="Beside it on the page: the odds of a roll, why one is immune ...")

    class Meta:
        ref_name = "TableEventChoice"


class FieldOut(serializers.Serializer[Any]):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=[k.value for k in Kind])
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field "label", not the base class's
    help = serializers.CharField()
    required = serializers.BooleanField()  # type: ignore[assignment]  # a declared field "required", not the base class's
    low = serializers.IntegerField(allow_null=True)
    high = serializers.IntegerField(allow_null=True)
    of = serializers.CharField(help_text="faces: the characters field whose chosen characters roll.")
    dice = serializers.CharField(help_text="faces and dice: the throw, e.g. 2d6.")
    choices = ChoiceOut(many=True, help_text="What the field offers you now (empty: anything of its kind).")

    class Meta:
        ref_name = "TableEventField"


class EventOut(serializers.Serializer[Any]):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field "label", not the base class's
    help = serializers.CharField()
    group = serializers.CharField()
    when = serializers.CharField(
        help_text="When it happens: " + "; ".join(f"{k} ({v})" for k, v in WHEN.items()) + ".",
    )
    url = serializers.CharField(help_text="Where to POST it.")
    fields = FieldOut(many=True)  # type: ignore[assignment]  # a declared field "fields", not the base class's

    class Meta:
        ref_name = "TableEvent"


class EventDoneSerializer(MadeSerializer):
    message = serializers.CharField(help_text="What was recorded, in words.")

    class Meta:
        ref_name = "TableEventDone"


def _field_out(f: Field, seat: Seat, campaign: Any) -> dict[str, Any]:
    return {
        "name": f.name,
        "kind": f.kind.value,
        "label": f.label,
        "help": f.help,
        "required": f.required,
        "low": f.low,
        "high": f.high,
        "of": f.of,
        "dice": f.dice,
        "choices": [{"value": c.value, "label": c.label, "note": c.note} for c in f.offered(campaign, seat)],
    }


class EventsView(ActionView):
    api_tag = "table events"

    @extend_schema(responses=EventOut(many=True), summary="The table's events you may record, with their fields")
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        seat = seat_of(request.user, v.campaign)
        out = [
            {
                "key": e.key,
                "label": e.label,
                "help": e.help,
                "group": e.group,
                "when": e.when,
                "url": request.build_absolute_uri(f"/api/v1/campaigns/{v.campaign.slug}/events/{e.key}/"),
                "fields": [_field_out(f, seat, v.campaign) for f in e.fields],
            }
            for e in available(v.campaign, seat)
        ]
        return Response(EventOut(out, many=True).data)


def _serializer_field(f: Field) -> serializers.Field[Any, Any, Any, Any]:
    """The input field a declaration's field becomes (its choices are checked against the caller's)."""
    common: dict[str, Any] = {"help_text": f.help or f.label, "required": f.required}
    if f.kind in (Kind.CHARACTERS, Kind.TITLES):
        return serializers.ListField(child=IdField(), max_length=MAX_PEOPLE, allow_empty=not f.required, **common)
    if f.kind in IDS:
        return IdField(allow_null=not f.required, **common)
    if f.kind in (Kind.CROWN, Kind.CHOICE):
        return serializers.CharField(max_length=80, allow_null=not f.required, **common)
    if f.kind == Kind.NUMBER:
        low, high = f.low if f.low is not None else -INT_MAX, f.high if f.high is not None else INT_MAX
        return serializers.IntegerField(min_value=low, max_value=high, allow_null=not f.required, **common)
    if f.kind == Kind.MONEY:
        return serializers.IntegerField(min_value=0, max_value=MONEY_MAX, allow_null=not f.required, **common)
    if f.kind == Kind.FLAG:
        return serializers.BooleanField(default=False, help_text=f.help or f.label)
    if f.kind == Kind.TEXT:
        return serializers.CharField(max_length=200, allow_blank=True, default="", help_text=f.help or f.label)
    if f.kind == Kind.FACES:
        return serializers.DictField(
            child=FacesField(),
            required=False,
            help_text=f"The faces typed for each character of `{f.of}` who rolls, by his id ({f.dice} each); "
            "a character left out: the server rolls for him.",
        )
    if f.kind == Kind.DICE:
        return FacesField(help_text=f"{f.help or f.label} ({f.dice}; absent: the server rolls).")
    if f.kind == Kind.AMOUNTS:
        return serializers.DictField(
            child=serializers.IntegerField(min_value=0, max_value=MONEY_MAX),
            required=False,
            help_text=f"{f.help or f.label} An amount for each of what the field offers you (its value as the key); "
            "one left out: none.",
        )
    raise ValueError(f.kind)


class EventIn(serializers.Serializer[Any]):
    """The base of every event's request: checks what a field offers against the caller's choices."""

    event: ClassVar[TableEvent]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        campaign, seat = self.context["campaign"], self.context["seat"]
        errors: dict[str, str] = {}
        for f in self.event.fields:
            value = attrs.get(f.name)
            if f.kind == Kind.AMOUNTS:
                offered_by_key = {str(c.value): c.value for c in f.offered(campaign, seat)}
                wrong = [key for key in value or {} if str(key) not in offered_by_key]
                if wrong:
                    errors[f.name] = f"{wrong[0]!r} is not one of what {f.label.lower()} offers you now (GET events/ lists them)."
                else:
                    attrs[f.name] = {offered_by_key[str(key)]: amount for key, amount in (value or {}).items()}
                continue
            if f.choices is not None and value not in (None, "", []):
                offered = {c.value for c in f.offered(campaign, seat)}
                values = value if isinstance(value, list) else [value]
                wrong = [v for v in values if v not in offered]
                if wrong:
                    errors[f.name] = f"{wrong[0]!r} is not one of what {f.label.lower()} offers you now (GET events/ lists them)."
            if f.kind == Kind.FACES and value:
                chosen = set(attrs.get(f.of) or [])
                spec = DiceSpec.parse(f.dice)
                typed: dict[int, list[int]] = {}
                for key, faces in value.items():
                    pk = int(key) if str(key).isdigit() else None
                    if pk is None or pk not in chosen:
                        errors[f.name] = f"Dice were typed for {key!r}, who is not in {f.of}."
                        break
                    if faces:
                        typed[pk] = check_faces(spec, faces, field=f.name, purpose=f.label) or []
                attrs[f.name] = typed
            if f.kind == Kind.DICE and value:
                attrs[f.name] = check_faces(DiceSpec.parse(f.dice), value, field=f.name, purpose=f.label)
        if errors:
            raise serializers.ValidationError(errors)
        return {k: v for k, v in attrs.items() if v is not None}


def _request_serializer(e: TableEvent) -> type[EventIn]:
    name = "".join(part.capitalize() for part in e.key.split("_")) + "Event"  # the schema adds "Request"
    attrs: dict[str, Any] = {f.name: _serializer_field(f) for f in e.fields}
    attrs["event"] = e
    attrs["Meta"] = type("Meta", (), {"ref_name": name})
    return type(name, (EventIn,), attrs)


class EventView(ActionView):
    api_tag = "table events"
    event: ClassVar[TableEvent]
    request_serializer: ClassVar[type[EventIn]]

    def post(self, request: Request, slug: str) -> Response:
        v, e = self.viewer, self.event
        if not e.applies(v.campaign):
            raise Http404(f"{e.label}: not in this campaign's rules.")
        seat = offered_to(e, v.campaign, request.user)  # 403 unless the policy offers it (the service asks again)
        refuse_replay(request, v.campaign)  # a key already used: answered before the body meets a changed campaign
        data = self.request_serializer(data=request.data, context={"campaign": v.campaign, "seat": seat})
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        result, made = act(request, v.campaign, e.label, lambda locked: e.run(campaign=locked, by=request.user, **values))
        body = {**made_data(made), "message": e.done(result)}
        return Response(EventDoneSerializer(body, context=self.out_context()).data)


def _event_view(e: TableEvent) -> type[EventView]:
    """One endpoint's view: its own ``post`` (so that its schema is its own) and request serializer."""
    request_serializer = _request_serializer(e)

    @extend_schema(
        request=request_serializer,
        responses=EventDoneSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary=f"{e.label} ({e.group.lower()})",
        description=e.help,
    )
    def post(self: EventView, request: Request, slug: str) -> Response:
        return EventView.post(self, request, slug)

    name = "".join(part.capitalize() for part in e.key.split("_")) + "EventView"
    return type(name, (EventView,), {"event": e, "request_serializer": request_serializer, "post": post})


def urlpatterns() -> list[URLPattern]:
    """The events' routes: the list, and one endpoint per declared event (the apps are ready)."""
    base = "campaigns/<slug:slug>/events/"
    routes = [path(base, EventsView.as_view(), name="events")]
    for e in events():
        routes.append(path(f"{base}{e.key}/", _event_view(e).as_view(), name=f"event-{e.key}"))
    return routes
