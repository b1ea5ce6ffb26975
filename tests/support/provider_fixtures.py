"""Provider-shaped histories for the adapter tests: each is what that provider's
API takes as a request (system prompt, tool calls and results, media, reasoning)."""

from __future__ import annotations

from typing import Any


def responses_message(text: str, id_: str = "msg_1") -> dict[str, Any]:
    """A completed OpenAI Responses assistant ``message`` item holding one
    ``output_text`` (no annotations)."""
    return {
        "type": "message",
        "role": "assistant",
        "id": id_,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


PNG = "iVBORw0KGgo="  # base64 of the PNG signature
PDF = "JVBERi0xLjQ="  # base64 of "%PDF-1.4"

ANTHROPIC_SYSTEM = "You are a weather assistant."
ANTHROPIC: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in this picture, and the weather in Paris?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": "I need the weather tool.",
                "signature": "EqQBCkgIARAB",
            },
            {"type": "text", "text": "Let me check."},
            {
                "type": "tool_use",
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "get_weather",
                "input": {"city": "Paris", "units": ["c"]},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                "content": "18C",
            },
            {"type": "text", "text": "Also, summarise this."},
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                "title": "report",
            },
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "It is 18C. The report is empty."}]},
    {"role": "user", "content": "thanks"},
    {"role": "assistant", "content": [{"type": "text", "text": "You are welcome."}]},
]

OPENAI_CHAT: list[dict[str, Any]] = [
    {"role": "system", "content": "You are terse."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Weather in Paris and Rome? And this image?"},
            {
                "type": "image_url",
                "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"},
            },
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
    {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "22C"}]},
    {"role": "assistant", "content": "Paris 18C, Rome 22C. The image is blank."},
    {"role": "user", "content": "thanks", "name": "alice"},
    {"role": "assistant", "content": "Bye.", "refusal": None},
]

OPENAI_RESPONSES: list[dict[str, Any]] = [
    {"type": "message", "role": "developer", "content": "Be brief."},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Need the tool."}],
        "encrypted_content": "gAAAAABo-encrypted",
    },
    {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
        "status": "completed",
    },
    {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It is 18C.", "annotations": []}],
    },
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "And this?"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "high"},
        ],
    },
    {"type": "message", "role": "assistant", "content": "A blank image."},
]

GEMINI_SYSTEM: dict[str, Any] = {"parts": [{"text": "You are a weather bot."}]}
GEMINI: list[dict[str, Any]] = [
    {
        "role": "user",
        "parts": [
            {"text": "Weather in Paris?"},
            {"inline_data": {"mime_type": "image/png", "data": PNG}},
        ],
    },
    {
        "role": "model",
        "parts": [
            {
                "text": "The user wants weather.",
                "thought": True,
                "thought_signature": "c2lnbmF0dXJl",
            },
            {
                "function_call": {"name": "get_weather", "args": {"city": "Paris"}},
                "thought_signature": "c2lnMg==",
            },
        ],
    },
    {
        "role": "user",
        "parts": [{"function_response": {"name": "get_weather", "response": {"temp": 18}}}],
    },
    {"role": "model", "parts": [{"text": "It is 18C."}]},
    {"role": "user", "parts": [{"text": "Thanks"}]},
    {"role": "model", "parts": [{"text": "Bye."}]},
]

BEDROCK_SYSTEM: list[dict[str, Any]] = [
    {"text": "You are a weather bot."},
    {"cachePoint": {"type": "default"}},
]
BEDROCK: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"text": "Weather in Paris?"},
            {"image": {"format": "png", "source": {"bytes": b"\x89PNG\r\n\x1a\n"}}},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {
                "reasoningContent": {
                    "reasoningText": {"text": "Need the tool.", "signature": "sig1"}
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                }
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": "tooluse_1",
                    "content": [{"json": {"temp": 18}}],
                    "status": "success",
                }
            }
        ],
    },
    {"role": "assistant", "content": [{"text": "It is 18C."}]},
    {
        "role": "user",
        "content": [
            {"document": {"format": "pdf", "name": "report", "source": {"bytes": b"%PDF-1.4"}}},
            {"text": "Summarise this."},
            {"cachePoint": {"type": "default"}},
        ],
    },
    {"role": "assistant", "content": [{"text": "It is empty."}]},
]

#: source name -> (messages, system parameter)
HISTORIES: dict[str, tuple[list[dict[str, Any]], Any]] = {
    "anthropic": (ANTHROPIC, ANTHROPIC_SYSTEM),
    "openai-chat": (OPENAI_CHAT, None),
    "openai-responses": (OPENAI_RESPONSES, None),
    "gemini": (GEMINI, GEMINI_SYSTEM),
    "bedrock": (BEDROCK, BEDROCK_SYSTEM),
}


def request(target: str, out: Any, system: Any = None) -> tuple[list[Any], Any]:
    """A provider's output as (messages, system parameter), for round trips."""
    if target == "anthropic":
        return out["messages"], out.get("system")
    if target == "gemini":
        return out["contents"], out.get("system_instruction")
    if target == "bedrock":
        return out["messages"], out.get("system")
    return out, None
