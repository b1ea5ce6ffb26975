"""Provider HTTP endpoints that never leave the process: a mock transport that
records each request body and answers with a minimal valid response (our own
fixtures, JSON or the provider's server-sent events when the request streams)."""

from __future__ import annotations

import json
from typing import Any

_ANTHROPIC_MESSAGE: dict[str, Any] = {
    "id": "msg_mock",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Done."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 2},
}


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def anthropic_body(stream: bool) -> tuple[bytes, str]:
    if not stream:
        return json.dumps(_ANTHROPIC_MESSAGE).encode(), "application/json"
    start = {**_ANTHROPIC_MESSAGE, "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": 12, "output_tokens": 0}
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Done."},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 2},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events), "text/event-stream"


def openai_chat_body(stream: bool) -> tuple[bytes, str]:
    message = {"role": "assistant", "content": "Done."}
    if not stream:
        body = {
            "id": "chatcmpl-mock",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4.1",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14},
        }
        return json.dumps(body).encode(), "application/json"
    chunk = {
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4.1",
    }
    events: list[tuple[str | None, dict[str, Any]]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": message, "finish_reason": None}]}),
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ]
    return _sse(events) + b"data: [DONE]\n\n", "text/event-stream"


def openai_responses_body(stream: bool) -> tuple[bytes, str]:
    item = {
        "id": "msg_mock",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
    }
    response: dict[str, Any] = {
        "id": "resp_mock",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-4.1",
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 12,
            "output_tokens": 2,
            "total_tokens": 14,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }
    if not stream:
        return json.dumps(response).encode(), "application/json"
    events: list[tuple[str | None, dict[str, Any]]] = [
        (
            "response.created",
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {**response, "status": "in_progress", "output": []},
            },
        ),
        (
            "response.completed",
            {"type": "response.completed", "sequence_number": 1, "response": response},
        ),
    ]
    return _sse(events), "text/event-stream"


_BODIES = {
    "/v1/messages": anthropic_body,
    "/v1/chat/completions": openai_chat_body,
    "/v1/responses": openai_responses_body,
}


class Recorder:
    """A handler for ``httpx.MockTransport`` / ``httpx2.MockTransport``: each
    request's JSON body is kept in ``bodies``; any other path is a 404."""

    def __init__(self, httpx_module: Any) -> None:
        self.httpx = httpx_module
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        path = request.url.path
        for suffix, make in _BODIES.items():
            if path.endswith(suffix):
                body = json.loads(request.content)
                self.bodies.append(body)
                content, kind = make(bool(body.get("stream")))
                return self.httpx.Response(200, content=content, headers={"content-type": kind})
        return self.httpx.Response(404, json={"error": {"message": f"no mock for {path}"}})

    def transport(self, asynchronous: bool = True) -> Any:
        return self.httpx.MockTransport(self)

    @property
    def last(self) -> dict[str, Any]:
        assert self.bodies, "no request reached the mock transport"
        return self.bodies[-1]
