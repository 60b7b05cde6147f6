"""A line of succession as the API shows it (the Survival board's successions and the succession views share it)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.views.actions import CharacterRefSerializer, ref
from dynasties.services.succession_view import SuccessionEntry, SuccessionLine

LINE_LIMIT = 10
"""How many heirs a line shows unless asked (at most ``LINE_LIMIT_MAX``)."""
LINE_LIMIT_MAX = 50


# --- Survival ----------------------------------------------------------------------------------


class PassOverSerializer(serializers.Serializer[Any]):
    allowed = serializers.BooleanField(help_text="May this heir be passed over now?")
    text = serializers.CharField(help_text="Why it is allowed, or the rule that forbids it.")
    summary = serializers.CharField()
    costs = serializers.ListField(child=serializers.CharField(), help_text="One sentence per penalty.")
    usurper = serializers.IntegerField(allow_null=True, help_text="The dynasty that would pay as usurper.")
    rival = serializers.IntegerField(allow_null=True, help_text="The dynasty that would gain against the usurper.")
    exile_to = serializers.IntegerField(allow_null=True, help_text="Rule C: the dynasty the heir would go into exile with.")

    class Meta:
        ref_name = "PassOverCost"


class LineEntrySerializer(serializers.Serializer[Any]):
    position = serializers.IntegerField()
    character = CharacterRefSerializer()
    age = serializers.IntegerField()
    minor = serializers.BooleanField(help_text="Under 15: a regent would rule.")
    kin = serializers.CharField(help_text="Kinship to the monarch.")
    reason = serializers.CharField(help_text="Why this place in the line.")
    level = serializers.IntegerField(help_text="0: the monarch's descendants; 1: his parent's line; ...")
    pass_over = PassOverSerializer(allow_null=True, help_text="Null for a title's line.")

    class Meta:
        ref_name = "SuccessionEntry"


class RelativeSerializer(serializers.Serializer[Any]):
    relative_birth_year = serializers.IntegerField()
    wife_birth_year = serializers.IntegerField()
    marriage_year = serializers.IntegerField()
    children_birth_years = serializers.ListField(child=serializers.IntegerField())

    class Meta:
        ref_name = "RelativePlan"


class LineSerializer(serializers.Serializer[Any]):
    crown = serializers.CharField()
    title = serializers.CharField(allow_null=True)
    year = serializers.IntegerField()
    monarch = CharacterRefSerializer(allow_null=True, help_text="Whose line this is.")
    player = serializers.IntegerField(allow_null=True, help_text="The dynasty controlling the crown.")
    total = serializers.IntegerField(allow_null=True, help_text="How many are in the line altogether.")
    rule_c = serializers.BooleanField(help_text="Optional rule C (disputed succession) is on.")
    dead = serializers.ListField(child=serializers.IntegerField(), help_text="What-if: those taken as dead.")
    monarch_dies = serializers.BooleanField(help_text="What-if: the monarch is among them.")
    successor = LineEntrySerializer(allow_null=True, help_text="What-if: who would succeed.")
    regent = CharacterRefSerializer(allow_null=True, help_text="The regent now, or the what-if's default regent.")
    relative = RelativeSerializer(allow_null=True, help_text="What-if: nobody of the blood left, the relative created.")
    notes = serializers.ListField(child=serializers.CharField())
    entries = LineEntrySerializer(many=True, help_text="The heirs in order.")

    class Meta:
        ref_name = "SuccessionLine"


def _entry(context: dict[str, Any], e: SuccessionEntry | None) -> dict[str, Any] | None:
    if e is None:
        return None
    p = e.pass_over
    return {
        "position": e.position,
        "character": ref(context, e.character),
        "age": e.age,
        "minor": e.minor,
        "kin": e.kin,
        "reason": e.reason,
        "level": e.level,
        "pass_over": None
        if p is None
        else {
            "allowed": p.allowed,
            "text": p.text,
            "summary": p.summary,
            "costs": list(p.costs),
            "usurper": p.usurper.pk if p.usurper else None,
            "rival": p.rival.pk if p.rival else None,
            "exile_to": p.exile_to.pk if p.exile_to else None,
        },
    }


def line_data(context: dict[str, Any], line: SuccessionLine) -> dict[str, Any]:
    r = line.relative
    return {
        "crown": line.crown,
        "title": line.title,
        "year": line.year,
        "monarch": ref(context, line.monarch),
        "player": line.player.pk if line.player else None,
        "total": line.total,
        "rule_c": line.rule_c,
        "dead": list(line.dead),
        "monarch_dies": line.monarch_dies,
        "successor": _entry(context, line.successor),
        "regent": ref(context, line.regent),
        "relative": None
        if r is None
        else {
            "relative_birth_year": r.relative_birth_year,
            "wife_birth_year": r.wife_birth_year,
            "marriage_year": r.marriage_year,
            "children_birth_years": list(r.children_birth_years),
        },
        "notes": list(line.notes),
        "entries": [_entry(context, e) for e in line.entries],
    }
