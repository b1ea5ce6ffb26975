"""Agent-framework message objects in and out (docs/PROVIDERS.md, "Frameworks").

Each adapter is a module imported only when used, needing only its framework:

- :mod:`msgnorm.frameworks.langchain`: ``from_langchain``, ``to_langchain``,
  ``normalize_langchain``, ``repair_langchain`` (``langchain-core`` 1.x messages)
  and ``MsgnormMiddleware`` (an ``AgentMiddleware``);
- :mod:`msgnorm.frameworks.pydantic_ai`: ``from_pydantic_ai``, ``to_pydantic_ai``,
  ``normalize_pydantic_ai``, ``repair_pydantic_ai`` (``ModelRequest`` /
  ``ModelResponse``), ``MsgnormCapability`` (an ``AbstractCapability``) and
  ``history_processor``;
- :mod:`msgnorm.frameworks.openai_agents`: ``call_model_input_filter`` and
  ``MsgnormInputFilter`` for ``RunConfig`` (OpenAI Agents SDK);
- :mod:`msgnorm.frameworks.agentscope`: ``from_agentscope``, ``to_agentscope``,
  ``normalize_agentscope`` (``Msg`` objects or their dicts);
- :mod:`msgnorm.frameworks.qwen_agent`: ``from_qwen_agent``, ``to_qwen_agent``,
  ``normalize_qwen_agent`` (``Message`` objects or their dicts).
"""

from __future__ import annotations

from ..providers._registry import register_framework

FRAMEWORKS = ("langchain", "pydantic-ai", "agentscope", "qwen-agent")
"""The framework names ``from_provider``'s ``source=`` and ``to_provider``'s
``target=`` also take."""

__all__ = ["FRAMEWORKS"]

for _name in FRAMEWORKS:
    # the adapter module is imported when first used
    register_framework(_name, f"{__name__}.{_name.replace('-', '_')}")
