"""``msgnorm rules``: the provider rules msgnorm checks, and its repairs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import provider_rules


def _rules(args: argparse.Namespace) -> int:
    if args.markdown:
        sys.stdout.write(provider_rules.rules_markdown())
        return 0
    for r in provider_rules.rules(args.provider):
        sys.stdout.write(f"{r['rule']}\t{r['message']}\t{r['repair']}\n")
    return 0


def add_parser(sub: Any) -> None:
    r = sub.add_parser("rules", help="the provider rules msgnorm checks, and its repairs")
    r.add_argument("--provider", choices=provider_rules.PROVIDERS, default=None)
    r.add_argument("--markdown", action="store_true", help="every table as docs/RULES.md")
    r.set_defaults(func=_rules)
