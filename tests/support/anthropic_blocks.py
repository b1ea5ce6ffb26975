"""Builders of Anthropic-shape messages and blocks for the provider-rule tests.

``U`` and ``A`` (``{"role", "content"}``) are also the message shape OpenAI Chat,
the Responses API's easy input messages and Bedrock share."""

from __future__ import annotations

from typing import Any

SIG = "EqQBCkgIARAC"


def U(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def A(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def T(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": text, **extra}


def TU(id_: str, name: str = "get_weather", input_: Any = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id_, "name": name, "input": {} if input_ is None else input_}


def TR(id_: str, content: Any = "sunny") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": id_, "content": content}


def THINK(text: str = "let me see") -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": SIG}


def STU(
    id_: str = "srvtoolu_01", name: str = "web_search", query: str = "weather"
) -> dict[str, Any]:
    return {"type": "server_tool_use", "id": id_, "name": name, "input": {"query": query}}
