"""What a rule is: its identity, documentation, examples, options, and how it reports.

A rule is one class in one module under ``rules/``. It subclasses :class:`Rule`, sets the class
attributes below, and implements libcst-style ``visit_<Node>`` / ``leave_<Node>`` methods. The
engine runs every enabled rule in one traversal of the tree, so a visit method must not rely on
pruning children (its return value is ignored).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from h2dlint.candidate_terms import Candidates, as_candidates
from h2dlint.diagnostics import Confidence, FixSafety, Severity
from h2dlint.examples import Invalid as Invalid
from h2dlint.examples import Valid as Valid

if TYPE_CHECKING:
    import libcst as cst

    from h2dlint.context import FileContext

# Where each rule's page lies in h2dlint's repository (generated from the rule, and printed by
# ``h2dlint rule CODE``). A path, not an address: no published site or repository address has
# been checked to hold these pages.
DOCS_DIR = "docs/rules/"

# What a fix replaces, and with what: one node, or (a statement) several statements.
Replacement = tuple["cst.CSTNode", "cst.CSTNode | cst.FlattenSentinel[Any]"]

CODE_PATTERN = re.compile(r"^HTD\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


# The longest code a message quotes; longer code is named in words.
SNIPPET_LIMIT = 40


def snippet(code: str, fallback: str, limit: int = SNIPPET_LIMIT) -> str:
    """``code`` in backticks, for a message; ``fallback`` when it is longer than ``limit``
    characters or spans lines."""
    return f"`{code}`" if len(code) <= limit and "\n" not in code else fallback


@dataclass(frozen=True)
class RuleOption:
    """A setting a rule reads from ``[tool.h2dlint.rules.<CODE>]``."""

    name: str
    kind: type
    default: Any
    help: str
    # For kind=list: the type of each item.
    item_kind: type | None = None

    def validate(self, value: Any) -> str | None:
        """Return an error message, or None when ``value`` is acceptable."""
        if self.kind is bool and not isinstance(value, bool):
            return f"expected true or false, got {value!r}"
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            return f"expected an integer, got {value!r}"
        if self.kind is str and not isinstance(value, str):
            return f"expected a string, got {value!r}"
        if self.kind is list:
            if not isinstance(value, list):
                return f"expected a list, got {value!r}"
            if self.item_kind is not None:
                bad = [item for item in value if not isinstance(item, self.item_kind)]
                if bad:
                    return f"expected a list of {self.item_kind.__name__}, got {bad[0]!r}"
        return None


@dataclass
class Report:
    """What a rule reported, before the engine turns it into a :class:`Finding`."""

    rule: type[Rule]
    node: cst.CSTNode
    message: str
    replacements: tuple[Replacement, ...] = ()
    fix_message: str = ""
    # The innermost statement around the node, for multi-line suppression comments.
    statement: cst.CSTNode | None = None
    # A construct around the node whose first line's suppression comment applies too (the loop
    # of a read reported inside it).
    enclosing: cst.CSTNode | None = None
    # The statement of the module, or of a top-level class's body, that holds the node (None
    # at module level): its code alone usually locates the node (``FileContext.locate``).
    top: cst.CSTNode | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    confidence: Confidence = Confidence.HIGH


class Rule:
    """Base class of every h2dlint rule."""

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    fix_safety: ClassVar[FixSafety] = FixSafety.NONE
    # ERROR for rules about wrong results (races), WARNING for speed: see Severity.
    severity: ClassVar[Severity] = Severity.WARNING
    fix_message: ClassVar[str] = ""
    # Byte strings of which at least one must occur in a file for this rule to possibly flag it.
    # None means the rule must see every file.
    prefilter: ClassVar[tuple[bytes, ...] | None] = None
    # The calls without which the rule cannot flag a file, as patterns decided on the CPython
    # ``ast`` tree before libcst parses it (see h2dlint/candidates.py), e.g.
    # ``("loop .to|.cuda",)``. None: every file whose bytes pass ``prefilter`` is a candidate.
    # Must describe a superset of what the rule can flag. A single string is one pattern.
    candidates: ClassVar[str | tuple[str, ...] | Candidates | None] = None
    options: ClassVar[tuple[RuleOption, ...]] = ()
    # Whether the rule is about code that runs on a GPU, so that fixtures/<CODE>/ must show it
    # (False only for rules about the linter itself, such as suppression comments).
    has_fixture: ClassVar[bool] = True
    valid: ClassVar[Sequence[Valid]] = ()
    invalid: ClassVar[Sequence[Invalid]] = ()

    # ``candidates``, parsed once per class.
    candidate_filter: ClassVar[Candidates | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A malformed declaration fails when the rule is defined, not on some file.
        cls.candidate_filter = as_candidates(cls.candidates)

    def __init__(self, context: FileContext, settings: dict[str, Any]) -> None:
        self.context = context
        self.settings = settings
        self._reports: list[Report] = []

    # -- what the engine reads ------------------------------------------------------------
    @classmethod
    def url(cls) -> str:
        """The rule's page as a URL reference relative to the root of h2dlint's repository
        (``docs/rules/HTD102.md``): what the JSON output's ``url`` field holds."""
        return f"{DOCS_DIR}{cls.code}.md"

    @classmethod
    def documentation(cls) -> str:
        """The rule's documentation in Markdown: the page ``docs/rules/CODE.md`` holds and
        ``h2dlint rule CODE`` prints."""
        body = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
        fix = {
            FixSafety.NONE: "No automatic fix.",
            FixSafety.SAFE: "Fix is always available and safe (applied by `--fix`).",
            FixSafety.UNSAFE: "Fix is sometimes available and unsafe "
            "(applied by `--fix --unsafe-fixes`).",
        }[cls.fix_safety]
        parts = [f"# {cls.name} ({cls.code})", "", f"{fix}", "", body]
        if cls.severity is Severity.ERROR:
            parts[2:2] = [
                "Severity: **error** (a correctness rule: SARIF level `error`, GitHub `::error`).",
                "",
            ]
        if cls.options:
            parts += ["", "## Options", ""]
            for option in cls.options:
                parts.append(
                    f"- `{option.name}` (default `{option.default!r}`): {option.help} "
                    f"Set it under `[tool.h2dlint.rules.{cls.code}]`."
                )
        return "\n".join(parts).rstrip() + "\n"

    @classmethod
    def summary(cls) -> str:
        """The first paragraph of the "What it does" section, on one line."""
        doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
        match = re.search(r"## What it does\s*\n(.*?)(\n\s*\n|\Z)", doc, re.S)
        text = match.group(1) if match else cls.message
        return " ".join(text.split())

    @classmethod
    def default_settings(cls) -> dict[str, Any]:
        return {option.name: option.default for option in cls.options}

    # -- what a rule calls ----------------------------------------------------------------
    def shown(self, node: cst.CSTNode, fallback: str, limit: int = SNIPPET_LIMIT) -> str:
        """``node``'s code in backticks, for a message; ``fallback`` (``"the source"``) when the
        code is longer than ``limit`` characters or spans lines."""
        return snippet(self.context.module.code_for_node(node), fallback, limit)

    def report(
        self,
        node: cst.CSTNode,
        message: str | None = None,
        *,
        replacements: Sequence[Replacement] = (),
        fix_message: str | None = None,
        confidence: Confidence = Confidence.HIGH,
        enclosing: cst.CSTNode | None = None,
    ) -> None:
        """Report ``node``. ``replacements`` are (old node, new node) pairs that fix it (a
        statement may be replaced by a ``cst.FlattenSentinel`` of statements; see
        h2dlint/fix_format.py for laying the new code out); they are offered only when the rule
        declares a fix safety other than NONE. A MEDIUM ``confidence`` finding rests on one
        inferred fact, and its message must say what would make it certain. A suppression
        comment on the first line of ``enclosing`` (a loop around the node) applies too."""
        if replacements and self.fix_safety is FixSafety.NONE:
            raise TypeError(f"{self.code} offers a fix but declares fix_safety NONE")
        # (Imported here: a run the cache answers imports the rules' catalogue, not libcst.)
        from h2dlint.statement_positions import member_of_class

        ancestors = self.context.ancestors  # the module first, then its statement
        self._reports.append(
            Report(
                rule=type(self),
                node=node,
                message=message or self.message,
                replacements=tuple(replacements),
                fix_message=fix_message or self.fix_message,
                statement=self.context.current_statement(),
                top=member_of_class(ancestors),
                confidence=confidence,
                enclosing=enclosing,
            )
        )

    def drain_reports(self) -> list[Report]:
        reports, self._reports = self._reports, []
        return reports


class ComprehensionVisits:
    """For a rule that judges every comprehension alike: list, set and dict comprehensions and
    generator expressions all go to :meth:`on_comprehension`."""

    def on_comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp
    ) -> None:
        raise NotImplementedError

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.on_comprehension(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.on_comprehension(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.on_comprehension(node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self.on_comprehension(node)
