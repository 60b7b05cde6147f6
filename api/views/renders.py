"""Renders: files, not JSON. A family tree (SVG, PNG or PDF), a character sheet, a contract and a
turn's announcements as PDF, the family record as GEDCOM. Read-only, with the pages' permissions:

- trees, announcements and GEDCOM: every member (the family record is public, RULES.md E7);
- a character sheet: the GM, or the player of the dynasty that controls the character
  (``dynasties.printing.may_print_dynasty``);
- a contract: the GM and the players of its parties (``campaign.permissions.visible``; anyone
  else gets 404, as for the contract itself).

A tree of more than ``settings.TREE_INLINE_PEOPLE`` people that is not in the cache is drawn on the
task queue, as the pages do (``dynasties.trees.jobs``): the tree answers 202 with the job; the job's
address follows it and its ``file`` is the render once drawn.

A success is the file with its own media type, whatever ``Accept`` says; an error is the API's
JSON error shape (the negotiation below always picks JSON, and ignores ``?format=``, which here
names the tree's format)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import CampaignScoped, visible_or_404
from api.filters import INT_MAX
from api.schema import ErrorSerializer
from api.views.backups import NotReady, job_out
from campaign.jobs import job_check
from campaign.models import Job, JobState
from contracts.models import Contract
from contracts.printing import contract_pdf
from dynasties import printing
from dynasties.gedcom import export_gedcom
from dynasties.models import Character, Dynasty
from dynasties.printing import may_print_dynasty
from dynasties.trees import jobs
from dynasties.trees.data import KINDS, TreeError
from dynasties.trees.dot import ORIENTATIONS
from dynasties.trees.render import (
    CROWN_MAX_LENGTH,
    FORMATS,
    GENERATIONS_MAX,
    ID_MAX,
    LIMIT_DEFAULT,
    LIMIT_MAX,
    LIMIT_MIN,
    PAPERS_ASKED,
    RenderError,
    TreeRequest,
    cached_tree,
    pages_url,
    render_tree,
    tree_people,
)
from rules.errors import NotFound, RuleError

PDF = "application/pdf"
GEDCOM = "text/plain"
TREE_FORMATS = ("svg", "png", "pdf")


class JsonErrorsNegotiation(BaseContentNegotiation):
    """The file views answer their file (an ``HttpResponse``) whatever ``Accept`` asks, and their
    errors as JSON: the renderer is always the first (JSON) one."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        first = next(iter(renderers))
        return first, first.media_type


class RenderFailed(exceptions.APIException):
    status_code = 503
    default_code = "render_failed"
    default_detail = "The file could not be drawn right now; try again."


class FileView(CampaignScoped, APIView):
    api_tag = "renders"
    throttle_scope = "render"  # a drawing costs: its own rate limit (api.throttles)
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonErrorsNegotiation


def _file(content: bytes | str, media_type: str, filename: str, *, attachment: bool = False) -> HttpResponse:
    response = HttpResponse(content, content_type=media_type)
    response["Content-Disposition"] = f'{"attachment" if attachment else "inline"}; filename="{filename}"'
    return response


def _binary(media_type: str, description: str) -> dict[Any, Any]:
    return {(200, media_type): OpenApiResponse(OpenApiTypes.BINARY, description=description)}


# trees -----------------------------------------------------------------------------------------


class TreeQuery(serializers.Serializer[Any]):
    """The bounds are the trees' own (``dynasties.trees.render``), as the page's."""

    format = serializers.ChoiceField(choices=TREE_FORMATS, default="svg", help_text="svg (default), png or pdf.")
    focus = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=ID_MAX,
        help_text="A character: the tree of his ancestors/descendants, or his family lines within a dynasty or campaign tree.",
    )
    generations = serializers.IntegerField(
        required=False, min_value=0, max_value=GENERATIONS_MAX, help_text="Cap on generations."
    )
    dynasty = serializers.IntegerField(required=False, min_value=1, max_value=ID_MAX, help_text="A dynasty tree's house.")
    crown = serializers.CharField(required=False, max_length=CROWN_MAX_LENGTH, help_text="A succession tree's crown.")
    limit = serializers.IntegerField(
        required=False, default=LIMIT_DEFAULT, min_value=LIMIT_MIN, max_value=LIMIT_MAX, help_text="Heirs on a succession tree."
    )
    paper = serializers.ChoiceField(
        choices=PAPERS_ASKED,
        default="auto",
        help_text="PNG and PDF: the sheet, A4, A3 or Letter (auto: A4 up to 40 people, else A3). A PDF is one sheet, "
        "the tree scaled to fit it; a PNG is scaled down to it.",
    )
    orientation = serializers.ChoiceField(
        choices=ORIENTATIONS, default="landscape", help_text="PNG and PDF: how the sheet lies, landscape or portrait."
    )

    class Meta:
        ref_name = "TreeQuery"


class TreeJobOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=JobState.choices)
    error = serializers.CharField(help_text="Why it failed (empty unless failed).")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="This job's address: follow it until its state is `done`.")
    file = serializers.CharField(allow_null=True, help_text="The render's address, once drawn.")
    tree = serializers.CharField(help_text="The tree's own address, as asked (to ask it again).")

    class Meta:
        ref_name = "TreeJob"


def _job_out(slug: str, job: Job) -> dict[str, object]:
    return {**job_out(job, reverse("api:tree-job", args=[slug, job.pk])), "tree": job.params["path"]}


class TreeView(FileView):
    @extend_schema(
        summary="A family tree",
        description=(
            "`dynasty` (needs `dynasty`), `campaign`, `ancestors` and `descendants` (need `focus`), `succession` (needs "
            "`crown`). People link to their character pages. Every member may draw any tree. A large tree (more people "
            "than the site draws at once, 500 by default) that is not drawn yet is queued: 202 with the job (and its "
            "address in `Location`); follow its `url` until its state is `done`, then fetch its `file`. Asking again "
            "for the same tree while it is drawn answers the same job."
        ),
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(KINDS)),
            TreeQuery,
        ],
        responses={
            **_binary(FORMATS["svg"], "The tree as SVG (`format=svg`)."),
            **_binary(FORMATS["png"], "The tree as PNG (`format=png`)."),
            **_binary(FORMATS["pdf"], "The tree as PDF (`format=pdf`)."),
            (202, "application/json"): OpenApiResponse(TreeJobOut, description="A large tree, queued: the job."),
        },
    )
    def get(self, request: Request, slug: str, kind: str) -> HttpResponse:
        v = self.viewer
        if kind not in KINDS:
            raise Http404(f"No tree of kind {kind!r}; one of {', '.join(KINDS)}.")
        query = TreeQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        wanted = TreeRequest(
            kind=kind,
            dynasty=q.get("dynasty"),
            focus=q.get("focus"),
            generations=q.get("generations"),
            crown=q.get("crown") or None,
            limit=q["limit"],
            fmt=q["format"],
            url=pages_url(v.campaign),
            paper=q["paper"],
            orientation=q["orientation"],
        )
        try:
            result = cached_tree(v.campaign, wanted)
            if result is None and tree_people(v.campaign, wanted, over=jobs.inline_people()) > jobs.inline_people():
                job = jobs.start(v.campaign, wanted, request.get_full_path(), by=request.user)
                response = Response(TreeJobOut(_job_out(slug, job)).data, status=status.HTTP_202_ACCEPTED)
                response["Location"] = reverse("api:tree-job", args=[slug, job.pk])
                return response
            if result is None:
                result = render_tree(v.campaign, wanted)
        except TreeError as exc:
            raise RuleError(str(exc), code="invalid_tree") from None
        except RenderError as exc:
            raise RenderFailed(str(exc)) from None
        return _file(result.content, result.content_type, f"{v.campaign.slug}-{kind}.{q['format']}")


class TreeJobView(CampaignScoped, APIView):
    api_tag = "renders"

    def _job(self, token: str) -> Job:
        job = jobs.find(self.viewer.campaign, token)
        if job is None:
            raise NotFound("No such tree being drawn.")
        return job_check(job)  # a lost one says so

    @extend_schema(summary="A large tree's job", responses={200: TreeJobOut})
    def get(self, request: Request, slug: str, token: str) -> Response:
        return Response(TreeJobOut(_job_out(slug, self._job(token))).data)


class TreeJobFileView(TreeJobView):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonErrorsNegotiation

    @extend_schema(
        summary="A large tree's render",
        description=(
            "The tree the job drew, in the format asked; 409 `not_ready` while it is drawn (or failed), 404 once its "
            "render is gone from the cache (ask the tree again at the job's `tree`)."
        ),
        responses={
            **_binary(FORMATS["svg"], "The tree as SVG (`format=svg`)."),
            **_binary(FORMATS["png"], "The tree as PNG (`format=png`)."),
            **_binary(FORMATS["pdf"], "The tree as PDF (`format=pdf`)."),
            409: OpenApiResponse(ErrorSerializer, description="Not drawn (yet)."),
        },
    )
    def get(self, request: Request, slug: str, token: str) -> HttpResponse:  # type: ignore[override]
        job = self._job(token)
        if job.state != JobState.DONE:
            why = f": {job.error}" if job.error else ""
            raise NotReady(f"This tree is {job.get_state_display().lower()}{why}: no render to fetch yet.")
        ready = jobs.rendered(job)
        if ready is None:
            raise NotFound(f"This tree's render is gone from the cache: ask the tree again ({job.params['path']}).")
        wanted = job.params["request"]
        return _file(ready[0], ready[1], f"{self.viewer.campaign.slug}-{wanted['kind']}.{wanted['fmt']}")


# printables ------------------------------------------------------------------------------------


class SheetView(FileView):
    @extend_schema(
        summary="A character sheet (PDF)",
        operation_id="campaigns_characters_sheet_pdf",
        description="The printable sheet: the GM, or the player of the dynasty that controls the character.",
        responses=_binary(PDF, "The sheet, A4."),
    )
    def get(self, request: Request, slug: str, pk: int) -> HttpResponse:
        v = self.viewer
        character = (
            Character.objects.select_related("campaign", "controlled_by", "father", "mother")
            .filter(pk=pk, campaign=v.campaign)
            .first()
        )
        if character is None:
            raise Http404("No such character.")
        if not may_print_dynasty(request.user, character.controlled_by, v.campaign):
            raise Http404("No such sheet: only the GM or the player of this character's dynasty prints it.")  # as the print door
        return _file(printing.character_sheet_pdf(character), PDF, f"sheet-{character.pk}.pdf")


class ContractPdfView(FileView):
    api_tag = "contracts"

    @extend_schema(
        summary="A contract (PDF)",
        description="The signable contract: its parties' players and the GM (anyone else: 404).",
        responses=_binary(PDF, "The contract, A4."),
    )
    def get(self, request: Request, slug: str, pk: int) -> HttpResponse:
        v = self.viewer
        contract: Contract = visible_or_404(request, v.campaign, Contract.objects.select_related("campaign"), pk=pk)  # type: ignore[assignment]
        return _file(contract_pdf(contract), PDF, f"contract-{contract.pk}.pdf")


class AnnouncementsPdfView(FileView):
    @extend_schema(
        summary="A turn's announcements (PDF)",
        description="The public announcements of a year of the campaign (no money, no contract): every member.",
        responses=_binary(PDF, "The announcements, A4."),
    )
    def get(self, request: Request, slug: str, year: int) -> HttpResponse:
        v = self.viewer
        campaign = v.campaign
        if not campaign.start_year <= year <= campaign.current_year:
            raise Http404(
                f"No announcements for {year}: the campaign runs from {campaign.start_year} to {campaign.current_year}."
            )
        return _file(printing.announcements_pdf(campaign, year), PDF, f"announcements-{campaign.slug}-{year}.pdf")


class GedcomQuery(serializers.Serializer[Any]):
    dynasty = serializers.IntegerField(
        required=False, min_value=1, max_value=INT_MAX, help_text="One dynasty only (its members and their spouses)."
    )

    class Meta:
        ref_name = "GedcomQuery"


class GedcomView(FileView):
    api_tag = "families"

    @extend_schema(
        summary="The family record as GEDCOM",
        description="GEDCOM 5.5.1 of the campaign (or one dynasty), for genealogy programs: every member.",
        parameters=[GedcomQuery],
        responses=_binary(GEDCOM, "GEDCOM 5.5.1, UTF-8."),
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        v = self.viewer
        query = GedcomQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        dynasty = None
        if "dynasty" in query.validated_data:
            dynasty = Dynasty.objects.filter(campaign=v.campaign, pk=query.validated_data["dynasty"]).first()
            if dynasty is None:
                raise serializers.ValidationError({"dynasty": "There is no such dynasty in this campaign."})
        name = f"{v.campaign.slug}-{slugify(dynasty.name) if dynasty else 'campaign'}.ged"
        return _file(export_gedcom(v.campaign, dynasty), f"{GEDCOM}; charset=utf-8", name, attachment=True)
