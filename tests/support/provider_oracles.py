"""The providers' own SDK types as offline oracles for msgnorm's provider output.

Each ``check_*`` raises when the SDK's type rejects the output. Pydantic ignores
keys a TypedDict does not declare, so the TypedDict checks also require the
validated value to equal the input: an unknown key fails too.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest


@functools.cache
def _adapter(name: str) -> Any:
    pydantic = pytest.importorskip("pydantic")
    if name == "openai-chat":
        chat = pytest.importorskip("openai.types.chat")
        return pydantic.TypeAdapter(list[chat.ChatCompletionMessageParam])
    if name == "openai-responses":
        responses = pytest.importorskip("openai.types.responses")
        return pydantic.TypeAdapter(list[responses.ResponseInputItemParam])
    if name == "anthropic":
        at = pytest.importorskip("anthropic.types")
        return pydantic.TypeAdapter(list[at.MessageParam])
    if name == "anthropic-system":
        at = pytest.importorskip("anthropic.types")
        return pydantic.TypeAdapter(str | list[at.TextBlockParam])
    raise KeyError(name)


def _materialize(v: Any) -> Any:
    """Validated data with pydantic's lazy ``Iterable`` validators run to the end, and
    any SDK model the union picked (pydantic versions differ: a block may come back
    as the response model ``TextBlock`` rather than the ``TextBlockParam`` dict) as
    the fields it was given."""
    dump = getattr(v, "model_dump", None)
    if callable(dump):
        v = dump(exclude_unset=True)
    if isinstance(v, dict):
        return {k: _materialize(x) for k, x in v.items()}
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        return v
    return [_materialize(x) for x in v]


def _strict(name: str, value: Any) -> None:
    validated = _materialize(_adapter(name).validate_python(value))
    assert validated == value, f"{name}: the SDK type does not declare {validated} != {value}"


@functools.cache
def _converse() -> Any:
    botocore_session = pytest.importorskip("botocore.session")
    model = botocore_session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").input_shape


def _tool_names(messages: list[dict[str, Any]]) -> list[str]:
    names = {
        b["toolUse"]["name"]
        for m in messages
        for b in m["content"]
        if isinstance(b, dict) and "toolUse" in b
    }
    return sorted(names)


def check_bedrock(out: dict[str, Any]) -> None:
    validate = pytest.importorskip("botocore.validate")
    params: dict[str, Any] = {"modelId": "anthropic.claude-sonnet-4", **out}
    names = _tool_names(out["messages"])
    if names:  # the API requires toolConfig when tool blocks are present
        params["toolConfig"] = {
            "tools": [
                {"toolSpec": {"name": n, "inputSchema": {"json": {"type": "object"}}}}
                for n in names
            ]
        }
    report = validate.ParamValidator().validate(params, _converse())
    assert not report.has_errors(), report.generate_report()


def check_gemini(out: dict[str, Any]) -> None:
    types = pytest.importorskip("google.genai.types")
    for c in out["contents"]:
        types.Content.model_validate(c)
    if "system_instruction" in out:
        types.Content.model_validate(out["system_instruction"])
    assert set(out) <= {"contents", "system_instruction"}


def check_anthropic(out: dict[str, Any]) -> None:
    _strict("anthropic", out["messages"])
    if "system" in out:
        _strict("anthropic-system", out["system"])


def check(target: str, out: Any) -> None:
    """The SDK oracle for ``target``'s output shape."""
    if target == "openai-chat":
        _strict("openai-chat", out)
    elif target == "openai-responses":
        _strict("openai-responses", out)
    elif target == "anthropic":
        check_anthropic(out)
    elif target == "gemini":
        check_gemini(out)
    elif target == "bedrock":
        check_bedrock(out)
    else:
        raise KeyError(target)
