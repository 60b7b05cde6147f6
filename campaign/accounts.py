"""Usernames that cannot pass for one another (issue 30).

A username is shown to every member (the public chronicle names who joins, who plays whom), so no
two accounts may have names a reader cannot tell apart: not "GMa" beside "gmA", not "gmА" with a
Cyrillic "А", not "rn" for "m" nor "0" for "O". Every account is checked here, whatever door makes
or renames it:

* a name is written in Unicode's NFKC form ("ｇｍ" is "gm": the join form normalises as Django's
  ``UsernameField`` does, any other door is told the plain form to use);
* its letters are of one script, or of one of the mixes Unicode's "highly restrictive" profile
  allows (Latin with Han and Japanese kana, with Han and Bopomofo, or with Han and Hangul: UTS #39,
  5.2), so a Latin name cannot hide a Cyrillic look-alike;
* no other account has it whatever the capitals: Django's ``UserCreationForm`` check
  (``username__iexact``), and the name case folded (Unicode's folding: SQLite's ``iexact`` folds
  ASCII only);
* no other account's name has the same *skeleton* (UTS #39, 4: each character replaced by the
  prototype of the characters that look like it, Unicode's ``confusables.txt``).

Case and look-alikes are two checks, not one skeleton of the case-folded name: folded together they
chain ("i" is the small "I", which looks like "l") and would refuse "newspain" for "newspaln". The
confusables and scripts are Unicode's data as the maintained ``confusable_homoglyphs`` package ships
them (the one django-registration uses for the same purpose); it keeps ``confusables.txt``'s pairs
both ways, so the prototype of a group of look-alikes is taken as its lowest code point, which makes
the same groups (the same equality) as UTS #39's prototypes. ``confusables`` (the other package) was
judged and not taken: its ``normalize`` lists every reading of a name (exponential in its length)
and its ``is_confusable`` compares two names, so it cannot look a name up among all accounts.

Each account's two keys are kept, hashed, in :class:`~campaign.models.AccountName`, each unique: a
name is compared with every account in one indexed read, and the database refuses a look-alike that
two doors let in at the same moment. :func:`username_problem` is what every door asks (the join
page, the admin's user forms); a guard on the user model's save refuses whatever slipped past a door
(``createsuperuser`` prints its message) and keeps the keys. All of it is linear in the name, at
most 150 characters."""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from typing import Any

from confusable_homoglyphs import categories, confusables
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.db.models.signals import post_save, pre_save

from campaign.models import AccountName
from rules.errors import RuleError

MAX_LENGTH = 150  # Django's username; longer names are refused before they are normalised (NFKC can only grow them)

NEUTRAL = frozenset({"COMMON", "INHERITED", "Unknown"})
"""Characters of no script of their own (digits, "._@+-", combining marks)."""

TOGETHER = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
"""Scripts written together in one name (UTS #39's highly restrictive profile); any other mix is refused."""

LRM = "\u200e"  # the package wraps right-to-left characters in left-to-right marks


def _field() -> str:
    return str(get_user_model().USERNAME_FIELD)


# The skeleton -------------------------------------------------------------------------------------


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> what stands for it in a skeleton (built once, in a few ms)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        root = c
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[c] != root:  # path compression
            parent[c], c = root, parent[c]
        return root

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)  # the lowest code point stands for the group

    sequences: dict[str, str] = {}  # a character that looks like several ("m" like "rn")
    for key, entries in confusables.confusables_data.items():
        key = key.replace(LRM, "")
        for entry in entries:
            other = entry["c"].replace(LRM, "")
            if len(key) == 1 and len(other) == 1:
                union(key, other)
            elif len(key) == 1 and len(other) > 1:
                sequences[key] = other
    table = {c: find(c) for c in parent}
    for c, sequence in sequences.items():
        table[c] = "".join(table.get(s, s) for s in sequence)
    return table


def skeleton(name: str) -> str:
    """What ``name`` looks like (UTS #39's skeleton of its NFKC form): equal for names that differ
    only in width or in look-alike letters ("gmA", "gmА", "ｇｍA"; "rn" and "m", "0" and "O", "l", "I"
    and "1"); linear in the name."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


def folded(name: str) -> str:
    """``name`` whatever its capitals (NFKC, case folded: "GMa", "gmA" and "GMA" are "gma")."""
    return unicodedata.normalize("NFKC", name).casefold()


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def username_keys(name: str) -> tuple[str, str]:
    """(case folded, skeleton), hashed, as :class:`AccountName` keeps them."""
    return _hash(folded(name)), _hash(skeleton(name))


# The checks ---------------------------------------------------------------------------------------


def normalise(name: str) -> str:
    """NFKC, as Django's ``UsernameField`` has it (a name too long is left as it is, to be refused)."""
    name = (name or "").strip()
    return name if len(name) > MAX_LENGTH else unicodedata.normalize("NFKC", name)


def _scripts(name: str) -> set[str]:
    return {s for s in categories.unique_aliases(name) if s not in NEUTRAL}


def _mixed(name: str) -> RuleError | None:
    scripts = _scripts(name)
    if len(scripts) <= 1 or any(scripts <= allowed for allowed in TOGETHER):
        return None
    named = sorted(s.title() for s in scripts)
    odd = next((c for c in name if categories.alias(c) not in NEUTRAL | {"LATIN"}), None) if "LATIN" in scripts else None
    example = f" (“{odd}” is {categories.alias(odd).title()})" if odd else ""
    return RuleError(
        f"“{name}” mixes the letters of {', '.join(named[:-1])} and {named[-1]}{example}: letters that look alike "
        f"in different alphabets could pass for another name, so write your username in one alphabet.",
        code="invalid",
        fields={"username": "mixed_scripts"},
    )


def username_problem(name: str, *, user: Any = None) -> RuleError | None:
    """Why ``name`` cannot be an account's username (None: it can), ``user`` being the account that
    would have it (a rename; None for a new account). Checks the form (NFKC), the scripts, and every
    other account: up to case (``username__iexact``, as Django's ``UserCreationForm``) and up to
    look-alike letters (the skeleton)."""
    User = get_user_model()
    field = _field()
    if not name:
        return RuleError("Choose a username.", code="invalid", fields={"username": "required"})
    if len(name) > MAX_LENGTH:
        return RuleError(
            f"A username is at most {MAX_LENGTH} characters; this one has {len(name)}.",
            code="invalid",
            fields={"username": "max_length"},
        )
    plain = unicodedata.normalize("NFKC", name)
    if plain != name:
        return RuleError(
            f"“{name}” has letters in a special form (full-width, a ligature, a superscript): write it “{plain}”.",
            code="invalid",
            fields={"username": "not_normal"},
        )
    mixed = _mixed(name)
    if mixed is not None:
        return mixed
    pk = getattr(user, "pk", user)
    others = User._default_manager.exclude(pk=pk) if pk is not None else User._default_manager.all()
    case, look = username_keys(name)
    names = AccountName.objects.filter(Q(folded=case) | Q(skeleton=look))
    if pk is not None:
        names = names.exclude(user_id=pk)
    clash = list(names.values_list("folded", flat=True)[:2])  # two accounts at most: one of each key
    if case in clash or others.filter(**{f"{field}__iexact": name}).exists():
        return RuleError(
            f"The username “{name}” is taken (a username is the same whatever its capitals): choose another.",
            code="taken",
            fields={"username": "taken"},
        )
    if clash:
        return RuleError(
            f"“{name}” looks like the name of an existing account (letters that look alike count as the same: "
            "a Cyrillic “а” as a Latin “a”, “rn” as “m”, “0” as “O”): choose another username.",
            code="taken",
            fields={"username": "confusable"},
        )
    return None


def require_username(name: str, *, user: Any = None) -> None:
    problem = username_problem(name, user=user)
    if problem is not None:
        raise problem


# Making an account --------------------------------------------------------------------------------


SIGNUP_CLOSED = (
    "This site does not let anyone make an account: ask your game master for an invitation link (it makes your "
    "account as you join), or the site's administrator for an account."
)


def signup_open() -> bool:
    """Whether anyone may make an account at /signup/ (the site setting ``REGNAL_OPEN_SIGNUP``)."""
    return bool(getattr(settings, "REGNAL_OPEN_SIGNUP", False))


@transaction.atomic
def account_signup(*, username: str, password: str, email: str = "") -> User:
    """An account made by its owner at /signup/: refused when the site forbids open sign-up (the
    setting), otherwise as :func:`account_create`. The new account is no member of anything: it
    starts a campaign (and is its GM) or joins one by an invitation link."""
    if not signup_open():
        raise RuleError(SIGNUP_CLOSED, code="signup_closed")
    return account_create(username=username, password=password, email=email)


@transaction.atomic
def account_create(*, username: str, password: str, email: str = "") -> User:
    """A new account (no privileges) of ``username`` (normalised to NFKC) and ``password`` (the
    door checks it with the password validators), refused with what to change when the name is not
    allowed (:func:`username_problem`)."""
    username = normalise(username)
    require_username(username)
    try:
        with transaction.atomic():
            return get_user_model()._default_manager.create_user(**{_field(): username}, email=email, password=password)
    except IntegrityError:  # another door made the same name, or a look-alike, a moment ago
        raise RuleError(
            f"The username “{username}” was taken a moment ago: choose another.", code="taken", fields={"username": "taken"}
        ) from None


# The guard on every save of an account ------------------------------------------------------------

_KEY = "_regnal_username_key"


def _guard(sender: type[Any], instance: Any, raw: bool = False, update_fields: Any = None, **kwargs: Any) -> None:
    """Before an account is saved with a new name (made, or renamed), refuse a name that may not be
    (a ``ValidationError``: ``createsuperuser`` prints it), and note its keys to keep."""
    field = _field()
    if raw or (update_fields is not None and field not in update_fields):
        return  # a fixture, or a save that leaves the name (the last login)
    name = getattr(instance, field)
    if instance.pk is not None:
        before = sender._default_manager.filter(pk=instance.pk).values_list(field, flat=True).first()
        if before == name:
            return  # not renamed: a name from before this rule stays as it is
    problem = username_problem(name, user=instance)
    if problem is not None:
        raise ValidationError({field: problem.message}, code=problem.code)
    setattr(instance, _KEY, username_keys(name))


def _keep(sender: type[Any], instance: Any, created: bool = False, **kwargs: Any) -> None:
    """Keep the keys of the name just saved (the unique keys refuse a look-alike saved meanwhile)."""
    keys = instance.__dict__.pop(_KEY, None)
    if keys is None:
        return
    folded_key, skeleton_key = keys
    if created:
        AccountName.objects.create(user_id=instance.pk, folded=folded_key, skeleton=skeleton_key)
    else:
        AccountName.objects.update_or_create(user_id=instance.pk, defaults={"folded": folded_key, "skeleton": skeleton_key})


def connect() -> None:
    """Guard every save of the user model (``CampaignConfig.ready``)."""
    User = get_user_model()
    pre_save.connect(_guard, sender=User, dispatch_uid="campaign.accounts.guard")
    post_save.connect(_keep, sender=User, dispatch_uid="campaign.accounts.keep")
