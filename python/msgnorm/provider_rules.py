"""Provider rules: which rule a history breaks, named before the provider answers 400.

Every provider's rules live in one table in the Rust core (docs/RULES.md lists
them); :func:`validate` reports every violation without changing anything.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from . import _native
from ._api import _derived
from .errors import ProviderRuleError

__all__ = ["PROVIDERS", "Provider", "Violation", "check", "rules", "rules_markdown", "validate"]

Provider = Literal["anthropic", "openai-chat", "openai-responses", "gemini", "bedrock"]
PROVIDERS: tuple[str, ...] = ("anthropic", "openai-chat", "openai-responses", "gemini", "bedrock")


class Violation(msgspec.Struct, frozen=True):
    """One place where a history breaks a provider rule.

    ``index`` is the message's position in the input (``None`` for the
    ``system``/``tools`` parameters or the list as a whole), ``path`` the place,
    e.g. ``messages[3].content[1]``, ``rule`` the rule id, ``message`` the
    provider's own error text and ``repair`` what msgnorm does about it
    ("none: ..." when the history must be fixed at its source).
    """

    index: int | None
    path: str
    rule: str
    message: str
    repair: str


def validate(
    messages: Any,
    provider: Provider | str = "anthropic",
    *,
    system: Any = None,
    tools: Any = None,
    store: bool = True,
    model: str | None = None,
) -> list[Violation]:
    """Every rule of ``provider`` that ``messages`` break, in message order.

    ``messages`` is the provider's own message list (Anthropic Messages
    ``{"role", "content"}`` dicts, OpenAI Chat messages, OpenAI Responses input
    items, Gemini ``contents``, Bedrock Converse messages), a list of msgnorm
    records for ``"anthropic"`` (read as :func:`msgnorm.to_anthropic` sends
    them), or JSON ``bytes``/``str`` of such a list. Pydantic models (e.g.
    ``google.genai.types.Content``) and msgspec Structs are read as their dicts.
    ``system`` and ``tools`` are the request's other parameters (for Bedrock,
    ``tools`` is the ``toolConfig`` or its ``tools`` list). ``store`` is the
    OpenAI Responses ``store`` parameter: ``store=False`` (a stateless request)
    adds the rules of a replay the server keeps nothing of (no stored item may
    be named; replayed items need their reasoning in the input). ``model`` is
    the model the request goes to (``claude-sonnet-4-5-20250929``, its Bedrock
    form ``us.anthropic.claude-sonnet-4-5-20250929-v1:0`` or Vertex form
    ``claude-sonnet-4-5@20250929``, ``gemini-2.5-flash``): the rules that only
    some models enforce (an assistant prefill, a ``system`` message among the
    messages, Gemini thought signatures; for a Bedrock or Vertex name, the
    image source kinds of that endpoint) are checked for it. Without a model
    (for msgnorm records: none in their ``message.model`` either) or with one
    msgnorm does not know, those rules do not fire. Nothing is changed.
    """
    if not isinstance(store, bool):
        raise TypeError(f"store: expected a bool, not {type(store).__name__}")
    if model is not None and not isinstance(model, str):
        raise TypeError(f"model: expected a str, not {type(model).__name__}")
    rows = _native.validate(messages, provider, system, tools, store, model)
    return [Violation(*row) for row in rows]


def repairable_violations(
    messages: Any,
    provider: Provider | str = "anthropic",
    *,
    system: Any = None,
    store: bool = True,
    model: str | None = None,
) -> list[Violation]:
    """The violations msgnorm repairs (not those whose repair is "none: ...")."""
    found = validate(messages, provider, system=system, store=store, model=model)
    return [v for v in found if not v.repair.startswith("none")]


def _raise_any(found: list[Violation]) -> None:
    if found:
        raise ProviderRuleError(found)


check = _derived(
    validate,
    _raise_any,
    "check",
    """:func:`validate`, raising :class:`ProviderRuleError` when anything breaks a rule.""",
)


def rules(provider: Provider | str | None = None) -> list[dict[str, str]]:
    """The rule table: ``{"provider", "rule", "message", "repair"}`` per rule."""
    out = [
        {"provider": p, "rule": rule, "message": text, "repair": repair}
        for p, rule, text, repair in _native.rules()
    ]
    if provider is not None:
        if provider not in PROVIDERS:
            validate([], provider)  # raises the error naming the known providers
        out = [r for r in out if r["provider"] == provider]
    return out


def rules_markdown() -> str:
    """docs/RULES.md: every provider's rule table in Markdown."""
    return _native.rules_markdown()
