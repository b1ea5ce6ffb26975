"""A griffe extension for the API page (mkdocs.yml): typed signatures from the sources and stubs.

griffe reads the package statically and merges ``_native.pyi`` into the inspected
extension module: the native functions keep their runtime parameters, defaults and
docstrings (from the Rust doc comments) and get the stub's annotations. Two things
griffe does not do on its own, done here:

- A stub's ``**options: Unpack[SomeTypedDict]`` is expanded into the keyword-only
  parameters it stands for, before the merge, so that the runtime's keyword
  parameters (and their defaults) get the TypedDict's annotations.
- The functions built at import time by ``_api._without_report(report, ...)`` and
  ``_api._derived(report, take, ...)`` (module attributes to static analysis)
  become functions with ``report``'s typed parameters, the return type a type
  checker gives them (the first item of ``report``'s tuple, or ``take``'s return
  type) and their runtime docstring.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import griffe

_WITHOUT_REPORT = "msgnorm._api._without_report"
_DERIVED = "msgnorm._api._derived"
_UNPACK = {"typing.Unpack", "typing_extensions.Unpack"}


class MsgnormSignatures(griffe.Extension):
    """Typed signatures for the native functions and the functions built at import time."""

    def on_function_instance(
        self, *, node: Any, func: griffe.Function, agent: Any, **kwargs: Any
    ) -> None:
        if not isinstance(agent, griffe.Visitor) or func.module.filepath.suffix != ".pyi":
            return
        var_kw = next(
            (p for p in func.parameters if p.kind is griffe.ParameterKind.var_keyword), None
        )
        annotation = var_kw.annotation if var_kw else None
        if not (
            isinstance(annotation, griffe.ExprSubscript)
            and annotation.canonical_path in _UNPACK
            and isinstance(annotation.slice, griffe.ExprName)
        ):
            return
        typed_dict = func.module.members.get(annotation.slice.name)
        if not isinstance(typed_dict, griffe.Class):
            return
        del func.parameters[var_kw.name]
        for attr in typed_dict.attributes.values():
            func.parameters[attr.name] = griffe.Parameter(
                attr.name,
                annotation=attr.annotation,
                kind=griffe.ParameterKind.keyword_only,
                default="...",
            )

    def on_attribute(
        self, *, attr: griffe.Attribute, loader: griffe.GriffeLoader, **kwargs: Any
    ) -> None:
        call = attr.value
        if not isinstance(call, griffe.ExprCall) or call.canonical_path not in {
            _WITHOUT_REPORT,
            _DERIVED,
        }:
            return
        report = _function(attr, call.arguments[0])
        if call.canonical_path == _WITHOUT_REPORT:
            returns = report.returns
            if isinstance(returns, griffe.ExprSubscript) and isinstance(
                returns.slice, griffe.ExprTuple
            ):
                returns = returns.slice.elements[0]
            else:
                raise ValueError(f"{attr.path}: {report.path} does not return a tuple")
        else:
            returns = _function(attr, call.arguments[1]).returns
        runtime = getattr(importlib.import_module(attr.module.path), attr.name)
        func = griffe.Function(
            attr.name,
            lineno=attr.lineno,
            endlineno=attr.endlineno,
            parameters=griffe.Parameters(*report.parameters),
            returns=returns,
        )
        func.docstring = griffe.Docstring(
            inspect.cleandoc(runtime.__doc__ or ""),
            parent=func,
            parser=loader.docstring_parser,
            parser_options=loader.docstring_options,
        )
        attr.parent.set_member(attr.name, func)


def _function(attr: griffe.Attribute, expr: Any) -> griffe.Function:
    """The function that ``expr`` (a name in ``attr``'s module) refers to."""
    if not isinstance(expr, griffe.ExprName):
        raise ValueError(f"{attr.path}: {expr} is not a name")
    target = attr.module.modules_collection[expr.canonical_path]
    if target.is_alias:
        target = target.final_target
    if not isinstance(target, griffe.Function):
        raise ValueError(f"{attr.path}: {expr.canonical_path} is not a function")
    return target
