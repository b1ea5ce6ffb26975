"""Type stubs of the Rust extension module (checked with ``python -m mypy.stubtest``).

Input kinds: a list of records (JSON-shaped dicts, or msgnorm Structs, which the
native readers read in place), ``bytes`` (JSON array or JSON Lines) or a
JSON ``str``; JSON input gives JSON output of the same type (``bytearray`` and
``memoryview`` are read as the ``bytes`` they hold). The public functions whose
options are declared here (``normalize_for_api``, ``count_tokens``, ...) are these
native functions themselves: their keyword defaults and checks exist once, here.
"""

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, final

from typing_extensions import Unpack, disjoint_base

__all__ = [
    "BUILD_PROFILE",
    "ArrowArray",
    "ArrowStream",
    "Bpe",
    "Conversation",
    "__version__",
    "_count",
    "_counting",
    "_force_panic",
    "_max_media",
    "_token_features",
    "arrow_kernel",
    "batch_kernel",
    "clear_context",
    "content_texts",
    "convert",
    "count_tokens",
    "count_tokens_per_record",
    "default_num_threads",
    "derive_short_message_id",
    "derive_uuid",
    "find_cutoff",
    "from_provider",
    "load_session",
    "normalize_for_api",
    "normalize_for_api_report",
    "normalize_messages",
    "prompt_tokens",
    "render_attachment",
    "rules",
    "rules_markdown",
    "search_files",
    "session_infos",
    "split_for_summary",
    "to_anthropic",
    "to_provider",
    "tool_name",
    "trim_to_budget",
    "usage_entries",
    "usage_scan",
    "validate",
    "validate_records",
]

__version__: str
#: The Cargo profile the extension was built with: ``release`` (thin LTO, what a
#: source install builds), ``dist`` (fat LTO, one codegen unit: the published
#: wheels) or ``dev`` (``maturin develop`` without ``--release``).
BUILD_PROFILE: str

class _ApiOptions(TypedDict, total=False):
    """The options of the §4 steps (``normalize_for_api`` and its report)."""

    strict: bool
    max_media: int | None
    short_ids: bool
    ensure_user_first: bool
    attachment_templates: Mapping[str, str | None] | None

#: ``(strict, max_media, short_ids, ensure_user_first, attachment_templates)``:
#: the §4 options of the batch, Arrow and conversation entry points.
_ApiArgs = tuple[bool, int | None, bool, bool, dict[str, str | None] | None]

class _Costs(TypedDict, total=False):
    """The token counting options (SPEC §6) every counting function takes: the
    tokenizer family, or the §6 formula's four options (which select "chars")."""

    tokenizer: Literal["auto", "claude", "o200k_base", "gemini", "chars"]
    chars_per_token: float | None
    tokens_per_message: int | None
    tokens_per_image: int | None
    tokens_per_document: int | None

#: ``(chars_per_token, tokens_per_message, tokens_per_image, tokens_per_document,
#: tokenizer)``, as ``_counting`` checked them.
_Counting = tuple[float, int, int, int, str]

def normalize_for_api(
    records: Any,
    **options: Unpack[_ApiOptions],
) -> Any: ...
def normalize_for_api_report(
    records: Any,
    *,
    source_map: bool = False,
    **options: Unpack[_ApiOptions],
) -> tuple[Any, dict[str, Any]]: ...
def normalize_messages(records: Any) -> Any: ...
def _counting(
    tokenizer: str = "auto",
    chars_per_token: float | None = None,
    tokens_per_message: int | None = None,
    tokens_per_image: int | None = None,
    tokens_per_document: int | None = None,
) -> _Counting: ...
def _max_media(value: int | None) -> int | None: ...
def _count(name: str, value: int, records: bool) -> int: ...
def count_tokens_per_record(
    records: Any,
    *,
    exact: bool = False,
    tokenizer: Literal["auto", "claude", "o200k_base", "gemini", "chars", "cl100k_base"] = "auto",
    chars_per_token: float | None = None,
    tokens_per_message: int | None = None,
    tokens_per_image: int | None = None,
    tokens_per_document: int | None = None,
) -> list[int]: ...
def count_tokens(
    records: Any,
    *,
    exact: bool = False,
    tokenizer: Literal["auto", "claude", "o200k_base", "gemini", "chars", "cl100k_base"] = "auto",
    chars_per_token: float | None = None,
    tokens_per_message: int | None = None,
    tokens_per_image: int | None = None,
    tokens_per_document: int | None = None,
) -> int: ...
def prompt_tokens(records: Any, extra: list[str], counting: _Counting) -> int: ...
def content_texts(records: Any) -> list[str | None]: ...
def _token_features(data: bytes) -> list[list[int]]: ...
def find_cutoff(
    records: Any,
    max_tokens: int,
    *,
    pin: int = 0,
    **costs: Unpack[_Costs],
) -> int: ...
def trim_to_budget(
    records: Any,
    max_tokens: int,
    *,
    pin: int = 0,
    **costs: Unpack[_Costs],
) -> Any: ...
def split_for_summary(
    records: Any,
    keep_tokens: int,
    *,
    pin: int = 0,
    **costs: Unpack[_Costs],
) -> tuple[Any, Any]: ...
def to_anthropic(records: Any) -> Any: ...
def validate_records(records: Any) -> int: ...
def validate(
    messages: Any,
    provider: str,
    system: Any = None,
    tools: Any = None,
    store: bool = True,
    model: str | None = None,
) -> list[tuple[int | None, str, str, str, str]]: ...
def rules() -> list[tuple[str, str, str, str]]: ...
def rules_markdown() -> str: ...
def from_provider(messages: list[Any], source: str, system: Any = None) -> list[dict[str, Any]]: ...

#: ``(target, store, continuation)``: a conversion's target and its Responses parameters.
_TargetArgs = tuple[str, bool, bool | None]

def to_provider(
    records: list[Any],
    target: _TargetArgs,
    system: Any,
    normalize: bool,
    options: tuple[bool, int | None],
) -> tuple[Any, dict[str, int]]: ...
def convert(
    messages: list[Any],
    source: str,
    target: _TargetArgs,
    system: Any,
    options: tuple[bool, int | None],
) -> tuple[Any, dict[str, int]]: ...
def tool_name(name: str, provider_name: str) -> str: ...
def clear_context(records: Any, args: dict[str, Any]) -> tuple[Any, Any]: ...
def render_attachment(
    attachment: Any, attachment_templates: dict[str, str | None] | None = None
) -> str | None: ...
def derive_uuid(parent: str, index: int) -> str: ...
def derive_short_message_id(uuid: str) -> str: ...
def load_session(
    files: list[tuple[str, bytes, str | None]],
    thread: str,
    after_compaction: bool,
    raise_errors: bool,
    fit: tuple[int, int] | None = None,
    named: bool = False,
) -> tuple[bytes, list[dict[str, Any]], int, dict[str, Any], list[tuple[str | None, int]]]: ...
def usage_scan(
    files: list[tuple[str, bool, str, str]],
    by: str,
    since: str | None = None,
    until: str | None = None,
    threads: int | None = None,
) -> dict[str, Any]: ...
def usage_entries(
    files: list[tuple[str, bool]], threads: int | None = None
) -> list[tuple[bytes, int]]: ...
def session_infos(paths: list[str], threads: int | None = None) -> list[dict[str, Any]]: ...
def search_files(
    paths: list[str],
    pattern: str,
    regex: bool = False,
    tools: bool = False,
    threads: int | None = None,
) -> list[dict[str, Any]]: ...
def batch_kernel(
    items: list[bytes | str],
    session: bool,
    num_threads: int | None,
    api: _ApiArgs | None,
    counting: _Counting | None,
) -> list[Any]: ...
def default_num_threads() -> int: ...

# The Arrow kernel: ``array`` has ``__arrow_c_array__`` or ``__arrow_c_stream__``;
# the result is an Arrow object with the same one (see ``msgnorm.arrow``).
@disjoint_base
class ArrowStream:
    """A chunked result: ``__arrow_c_stream__``."""

    def __arrow_c_schema__(self) -> Any: ...
    def __arrow_c_stream__(self, requested_schema: object = None) -> Any: ...
    def __len__(self) -> int: ...

@final
class ArrowArray(ArrowStream):
    """A result of one array: ``__arrow_c_array__`` (and a one-chunk stream)."""

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[Any, Any]: ...

def arrow_kernel(
    array: Any,
    session: bool,
    num_threads: int | None,
    raise_first: bool,
    api: _ApiArgs | None,
    counting: _Counting | None,
) -> ArrowArray | ArrowStream: ...
def _force_panic(message: str) -> None: ...

@final
class Bpe:
    def __new__(cls, encoding: str, data: bytes) -> Bpe: ...
    @property
    def encoding(self) -> str: ...
    def count(self, text: str) -> int: ...
    def count_many(self, texts: list[str]) -> list[int]: ...
    def count_records(self, data: bytes) -> list[int]: ...
    def count_list(self, records: list[Any]) -> list[int]: ...

@final
class Conversation:
    def __new__(
        cls,
        api: _ApiArgs,
        counting: _Counting,
    ) -> Conversation: ...
    def append(self, data: bytes | str) -> int: ...
    def for_api(self) -> bytes: ...
    def json_range(self, start: int, stop: int) -> bytes: ...
    def __len__(self) -> int: ...
    @property
    def input_len(self) -> int: ...
    @property
    def settled_len(self) -> int: ...
    @property
    def rewrites(self) -> int: ...
    def count_tokens_per_record(self) -> list[int]: ...
    def count_tokens(self) -> int: ...
    def prompt_tokens(self, extra: list[str]) -> int: ...
    def record_usage(self, usage: Any) -> bool: ...
    def trim_to_budget(self, max_tokens: int, pin: int) -> bytes: ...
    def split_for_summary(self, keep_tokens: int, pin: int) -> tuple[bytes, bytes]: ...
    def set_policy(self, args: dict[str, Any]) -> None: ...
    @property
    def edit_count(self) -> int: ...
    def edits(self) -> list[tuple[int, dict[str, Any]]]: ...
    def cache_breakpoints(self) -> list[int]: ...
    def tail_report(self) -> dict[str, int]: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> Conversation: ...
