"""The turn: where it stands, what it waits for, where the GM's undo goes back to; the answer of an action that moves the turn."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.views.actions import (
    ActionView,
    CheckpointSerializer,
    ReignsMadeSerializer,
    TurnSerializer,
    made_data,
    step_states,
)
from campaign.models import Campaign, Checkpoint, Step
from campaign.steps import STEP_LABELS, STEP_WAITS
from campaign.undo import RedoPlan, UndoOffer, UndoPlan, UndoPlans, describe, undo_offers
from dynasties.services.sequence_view import births_board, survival_board

# --- the turn ----------------------------------------------------------------------------------


def checkpoint_data(checkpoint: Checkpoint) -> dict[str, Any]:
    """A checkpoint as ``CheckpointSerializer`` shows it (an undo's or a redo's plan, what was put back)."""
    return {
        "year": checkpoint.year,
        "step": checkpoint.step,
        "step_label": STEP_LABELS[checkpoint.step],
        "description": describe(checkpoint),
        "opened_by": checkpoint.label,
    }


def _plan(plan: UndoPlan | None) -> dict[str, Any] | None:
    if plan is None:
        return None
    lost = {"lost_rolls": plan.lost_rolls, "lost_chronicle": plan.lost_chronicle, "lost_postings": plan.lost_postings}
    more = {"losses": {loss.key: loss.count for loss in plan.losses}, "summary": plan.summary}
    return {**checkpoint_data(plan.checkpoint), **lost, **more}


def _redo(plan: RedoPlan | None) -> dict[str, Any] | None:
    return None if plan is None else {**checkpoint_data(plan.checkpoint), "change_sets": plan.change_sets}


def plans_data(plans: UndoPlans) -> dict[str, Any]:
    """The plans of undo and redo as ``UndoPlansSerializer`` shows them (the undo preview)."""
    return {"step": _plan(plans.step), "turn": _plan(plans.turn), "redo": _redo(plans.redo)}


def _offer(offer: UndoOffer | None) -> dict[str, Any] | None:
    return None if offer is None else checkpoint_data(offer.checkpoint)


def turn_data(campaign: Campaign, by: Any) -> dict[str, Any]:
    """Where the turn stands, what it waits for, and where undo would go back to (to those the
    policy shows it: ``campaign.undo.undo_offers`` asks it for ``by``; what an undo would throw
    away is the undo preview's, ``GET undo/``: counted when asked for, not on every read)."""
    to_roll: int | None = None
    if campaign.step == Step.BIRTHS:
        board = births_board(campaign)
        to_roll = len(board.waiting) + len(board.pending_sex)
    elif campaign.step == Step.SURVIVAL:
        to_roll = len(survival_board(campaign).to_roll)
    offers = undo_offers(campaign, by=by)
    undo = None if offers is None else {"step": _offer(offers.step), "turn": _offer(offers.turn), "redo": _redo(offers.redo)}
    return {
        "year": campaign.current_year,
        "turn_number": campaign.turn_number,
        "step": campaign.step,
        "step_label": STEP_LABELS[campaign.step],
        "waits": STEP_WAITS.get(campaign.step, ""),
        "to_roll": to_roll,
        "steps": step_states(campaign, STEP_WAITS, STEP_LABELS),
        "undo": undo,
    }


class TurnMadeSerializer(ReignsMadeSerializer):
    turn = TurnSerializer(help_text="The turn after the action.")

    class Meta:
        ref_name = "TurnResult"


class TurnView(ActionView):
    @extend_schema(responses=TurnSerializer, summary="The turn: year, step, what it waits for, where the GM's undo goes back to")
    def get(self, request: Request, slug: str) -> Response:
        v = self.viewer
        return Response(TurnSerializer(turn_data(v.campaign, request.user)).data)


def checkpoint_made(field: str, help_text: str, ref_name: str) -> type[serializers.Serializer[Any]]:
    """The serializer of an undo's or a redo's answer: the checkpoint as ``field``, and the turn."""
    fields = {field: CheckpointSerializer(help_text=help_text), "turn": TurnSerializer()}
    return type(
        f"{ref_name}Serializer", (serializers.Serializer[Any],), {**fields, "Meta": type("Meta", (), {"ref_name": ref_name})}
    )


def checkpoint_result(view: ActionView, field: str, checkpoint: Checkpoint, out: type[serializers.Serializer[Any]]) -> Response:
    """The answer of an undo or a redo: the checkpoint it went back to (or wrote again) as ``field``,
    and the turn after it."""
    campaign = view.viewer.campaign
    campaign.refresh_from_db()
    body = {field: checkpoint_data(checkpoint), "turn": turn_data(campaign, view.request.user)}
    return Response(out(body, context=view.out_context()).data)


def turn_result(view: ActionView, made: Any, campaign: Campaign) -> Response:
    campaign.refresh_from_db()
    data = {**made_data(made), "turn": turn_data(campaign, view.request.user)}
    return Response(TurnMadeSerializer(data, context=view.out_context()).data)
