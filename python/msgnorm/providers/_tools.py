"""Tool names as a provider takes them (``tool_name``, ``rename_tools``)."""

from __future__ import annotations

from typing import Any

from .. import _native
from ..errors import InvalidRecordError
from ._registry import _plain

__all__ = ["rename_tools", "tool_name"]


def tool_name(name: str, provider: str = "anthropic") -> str:
    """The tool name ``provider``'s output writes for ``name``.

    A valid name (1 to 64 characters of ``[a-zA-Z0-9_-]``; Gemini also takes
    ``.`` and ``:`` after a letter or ``_``) is returned as it is. Any other
    name becomes its allowed characters (the others replaced by ``_``), cut to
    55, then ``_`` and the CRC-32 of the whole name in hex: ``"get weather"`` →
    ``"get_weather_<crc32>"``. It depends on the name alone, so the calls in a
    history, their results and your tool definitions (:func:`rename_tools`)
    agree on every request. Map the model's calls back with
    ``{tool_name(n, provider): n for n in names}``.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    return _native.tool_name(name, provider)


def rename_tools(tools: Any, provider: str = "anthropic") -> Any:
    """``tools`` (the request's tool definitions) with every name mapped by
    :func:`tool_name`, so they match what :func:`to_provider` writes.

    Shapes: ``anthropic`` a list of tools (server tools keep their names);
    ``openai-chat`` a list of ``{"type": "function", "function": {"name"}}``;
    ``openai-responses`` a list of ``{"type": "function", "name"}``; ``gemini`` a
    list of ``{"function_declarations": [{"name"}]}`` (or ``functionDeclarations``);
    ``bedrock`` the ``toolConfig`` dict (its ``toolChoice`` too) or its ``tools``
    list. The input is not changed: renamed entries are copies.
    """

    def named(d: Any, *path: str) -> Any:
        """``d`` with the str at ``path`` renamed (a copy when it changes)."""
        if not isinstance(d, dict):
            return d
        if len(path) == 1:
            old = d.get(path[0])
            if not isinstance(old, str):
                return d
            new = _native.tool_name(old, provider)
            return d if new == old else {**d, path[0]: new}
        inner = d.get(path[0])
        new_inner = named(inner, *path[1:])
        return d if new_inner is inner else {**d, path[0]: new_inner}

    def each(items: Any, one: Any) -> list[Any]:
        if not isinstance(items, (list, tuple)):
            raise InvalidRecordError(
                f"tools: expected a list of {provider} tool definitions, got {type(items).__name__}"
            )
        return [one(_plain(t)) for t in items]

    _native.tool_name("", provider)  # an unknown provider name raises here
    tools = _plain(tools)
    if provider == "anthropic":
        return each(tools, lambda t: named(t, "name") if t.get("type") in (None, "custom") else t)
    if provider == "openai-chat":
        return each(
            tools,
            lambda t: (
                named(t, "custom", "name")
                if t.get("type") == "custom"
                else named(t, "function", "name")
            ),
        )
    if provider == "openai-responses":
        return each(
            tools, lambda t: named(t, "name") if t.get("type") in ("function", "custom") else t
        )
    if provider == "gemini":

        def gemini_tool(t: Any) -> Any:
            for key in ("function_declarations", "functionDeclarations"):
                decls = t.get(key) if isinstance(t, dict) else None
                if isinstance(decls, list):
                    t = {**t, key: [named(_plain(f), "name") for f in decls]}
            return t

        return each(tools, gemini_tool)
    # bedrock
    if isinstance(tools, dict):
        out = {**tools, "tools": rename_tools(tools.get("tools", []), provider)}
        return named(out, "toolChoice", "tool", "name")
    return each(tools, lambda t: named(t, "toolSpec", "name"))
