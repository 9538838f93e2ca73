"""Generate source-level mutants of a Python module: small planted bugs, each one patch.

Every mutant replaces one span of the original text (found from the ``ast`` node positions
and the token stream), so the rest of the file stays byte-identical and a mutant's diff is
one or two lines. Operator classes:

==========  ==========================================================================
class       mutation
==========  ==========================================================================
arith       ``+ ↔ -``, ``* ↔ /``, ``// → /``, ``% → //``, ``** → *`` (also in ``+=`` ...)
compare     ``< ↔ <=``, ``> ↔ >=``, ``== ↔ !=``, ``is ↔ is not``, ``in ↔ not in``
boolean     ``and ↔ or``, ``not x → x``, ``True ↔ False``
sign        ``-x → x``; a float literal ``c → -c``
constant    a float literal ``c → 2c`` (``0.0 → 1.0``); an int literal ``n → n + 1``
drop        a term or factor dropped: ``a + b → a``, ``a + b → b``, ``a - b → a``,
            ``a * b → a``, ``a / b → a``, ``a ** b → a``
return      a function short-circuited: ``return <first argument>`` before its body
==========  ==========================================================================

Not mutated: strings (docstrings, messages, f-strings), ``raise`` statements, calls to
``print``/``warnings``/``logging``, ``__all__``, type annotations, decorators, default
argument values and class-level assignments (dataclass field defaults: configuration,
not logic), and dunder methods for ``return``. Mutants inside the test of an ``if`` whose
body only raises are flagged ``guard`` (validation plumbing).

>>> src = "def f(x, y):\\n    return x + 2.0 * y\\n"
>>> mutants = generate_mutants(src, "m", "m.py")
>>> [(m.operator, m.replacement.strip()) for m in mutants]  # doctest: +NORMALIZE_WHITESPACE
[('return', 'return x'), ('arith', 'x - 2.0 * y'), ('drop', '2.0 * y'), ('drop', 'x'),
 ('arith', '2.0 / y'), ('constant', '4.0'), ('drop', '2.0'), ('sign', '-2.0')]
>>> print(apply(src, mutants[1]), end="")
def f(x, y):
    return x - 2.0 * y
>>> mutants[1].id
'm:f:arith:x + 2.0 * y->x - 2.0 * y'
"""

from __future__ import annotations

import ast
import bisect
import difflib
import io
import tokenize
import zlib
from dataclasses import dataclass, replace

__all__ = ["OPERATORS", "Mutant", "apply", "generate_mutants", "unified_diff"]

OPERATORS = ("arith", "compare", "boolean", "sign", "constant", "drop", "return")

_ARITH = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
          ast.FloorDiv: ("//", "/"), ast.Mod: ("%", "//"), ast.Pow: ("**", "*")}
_DROP = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_COMPARE = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">"),
            ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="), ast.Is: ("is", "is not"),
            ast.IsNot: ("is not", "is"), ast.In: ("in", "not in"), ast.NotIn: ("not in", "in")}
_BOOL = {ast.And: ("and", "or"), ast.Or: ("or", "and")}
_QUIET_CALLS = {"print", "warn", "debug", "info", "warning", "error", "exception", "critical", "log"}
_QUIET_OWNERS = {"warnings", "logging", "logger", "log", "LOGGER", "_logger", "_log"}
_ID_TEXT_LIMIT = 60


@dataclass(frozen=True)
class Mutant:
    """One planted bug: replace ``source[start:end]`` (character offsets) by ``replacement``.

    ``id`` is stable under edits elsewhere in the file: it names the module, the enclosing
    function, the operator class and the original → replacement text (whitespace
    normalised), plus ``#k`` when the same text occurs k times in one function.
    """

    module: str
    path: str
    qualname: str
    operator: str
    line: int
    col: int
    start: int
    end: int
    original: str
    replacement: str
    guard: bool = False
    occurrence: int = 1

    @property
    def id(self) -> str:
        tail = f"#{self.occurrence}" if self.occurrence > 1 else ""
        return (f"{self.module}:{self.qualname}:{self.operator}:"
                f"{_id_text(self.original)}->{_id_text(self.replacement)}{tail}")

    def as_dict(self) -> dict:
        return {"id": self.id, "module": self.module, "path": self.path, "qualname": self.qualname,
                "operator": self.operator, "line": self.line, "col": self.col,
                "original": self.original, "replacement": self.replacement, "guard": self.guard}


def _id_text(text: str) -> str:
    text = " ".join(text.split()) or "<body>"
    if len(text) <= _ID_TEXT_LIMIT:
        return text
    return f"{text[:_ID_TEXT_LIMIT - 12]}...{zlib.crc32(text.encode()):08x}"


def apply(source: str, mutant: Mutant) -> str:
    """The mutated source text (everything outside the mutant's span is unchanged)."""
    return source[:mutant.start] + mutant.replacement + source[mutant.end:]


def unified_diff(source: str, mutant: Mutant, context: int = 1) -> str:
    """A unified diff of the mutant against ``source``, labelled with its path."""
    lines = difflib.unified_diff(source.splitlines(keepends=True),
                                 apply(source, mutant).splitlines(keepends=True),
                                 fromfile=f"a/{mutant.path}", tofile=f"b/{mutant.path}", n=context)
    return "".join(lines)


class _Positions:
    """Converts ast (line, UTF-8 byte column) and token (line, char column) to char offsets."""

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def from_bytes(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        return self.starts[line - 1] + len(text.encode()[:byte_col].decode())

    def from_chars(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def node_span(self, node: ast.AST) -> tuple[int, int]:
        return (self.from_bytes(node.lineno, node.col_offset),
                self.from_bytes(node.end_lineno, node.end_col_offset))


class _Generator(ast.NodeVisitor):
    def __init__(self, source: str, module: str, path: str) -> None:
        self.source, self.module, self.path = source, module, path
        self.pos = _Positions(source)
        # operator-like tokens by character offset: what sits between two operands
        self.tokens = [(self.pos.from_chars(*t.start), self.pos.from_chars(*t.end), t.string)
                       for t in tokenize.generate_tokens(io.StringIO(source).readline)
                       if t.type in (tokenize.OP, tokenize.NAME)]
        self.token_starts = [t[0] for t in self.tokens]
        self.scope: list[str] = []
        self.guard_depth = 0
        self.found: list[Mutant] = []

    # -- recording ---------------------------------------------------------------------
    def _add(self, operator: str, start: int, end: int, replacement: str, node: ast.AST) -> None:
        original = self.source[start:end]
        if original == replacement:
            return
        line = self.source.count("\n", 0, start) + 1
        col = start - self.pos.starts[line - 1]
        self.found.append(Mutant(
            module=self.module, path=self.path, qualname=".".join(self.scope) or "<module>",
            operator=operator, line=line, col=col, start=start, end=end, original=original,
            replacement=replacement, guard=self.guard_depth > 0))

    def _node_mutant(self, operator: str, node: ast.AST, make: callable) -> None:
        """A mutant that rewrites the whole text of ``node`` as ``make(text, offset_of)``."""
        start, end = self.pos.node_span(node)
        replacement = make(self.source[start:end], lambda i: i - start)
        self._add(operator, start, end, replacement, node)

    def _operator_span(self, after: int, before: int) -> tuple[int, int, str] | None:
        """The operator token(s) strictly between two operands (parentheses skipped)."""
        first = bisect.bisect_left(self.token_starts, after)
        last = bisect.bisect_left(self.token_starts, before)
        inside = [t for t in self.tokens[first:last] if t[1] <= before and t[2] not in "()"]
        if not inside:
            return None
        return inside[0][0], inside[-1][1], " ".join(t[2] for t in inside)

    # -- scopes and exclusions -------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        self._short_circuit(node)
        for stmt in node.body:  # decorators, annotations and defaults are not visited
            self.visit(stmt)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        for stmt in node.body:  # class-level values (dataclass defaults) are configuration
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.visit(stmt)
        self.scope.pop()

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.body)  # not the defaults

    def visit_Raise(self, node: ast.Raise) -> None:
        pass

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        pass

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call) and _is_quiet_call(call.func):
            return
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test) or _is_main_guard(node.test):
            return
        guard = all(isinstance(s, ast.Raise) for s in node.body)
        self.guard_depth += guard
        self.visit(node.test)
        self.guard_depth -= guard
        for stmt in node.body + node.orelse:
            self.visit(stmt)

    # -- operators ---------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> None:
        kind = type(node.op)
        start, end = self.pos.node_span(node)
        left_end = self.pos.node_span(node.left)[1]
        right_start = self.pos.node_span(node.right)[0]
        found = self._operator_span(left_end, right_start)
        if found is not None and kind in _ARITH and found[2] == _ARITH[kind][0]:
            op_start, op_end, _ = found
            new = self.source[start:op_start] + _ARITH[kind][1] + self.source[op_end:end]
            self._add("arith", start, end, new, node)
            if kind in _DROP:
                # keep an operand with the parentheses it was written with
                left = self.source[start:op_start].rstrip()
                right = self.source[op_end:end].lstrip()
                self._add("drop", start, end, left, node)
                if kind is ast.Add:
                    self._add("drop", start, end, right, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        kind = type(node.op)
        start, end = self.pos.node_span(node)
        found = self._operator_span(self.pos.node_span(node.target)[1],
                                    self.pos.node_span(node.value)[0])
        if found is not None and kind in _ARITH and found[2] == _ARITH[kind][0] + "=":
            op_start, op_end, _ = found
            new = self.source[start:op_start] + _ARITH[kind][1] + "=" + self.source[op_end:end]
            self._add("arith", start, end, new, node)
        self.visit(node.value)

    def visit_Compare(self, node: ast.Compare) -> None:
        start, end = self.pos.node_span(node)
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            found = self._operator_span(self.pos.node_span(operands[i])[1],
                                        self.pos.node_span(operands[i + 1])[0])
            old, new_op = _COMPARE[type(op)]
            if found is not None and found[2] == old:
                new = self.source[start:found[0]] + new_op + self.source[found[1]:end]
                self._add("compare", start, end, new, node)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        start, end = self.pos.node_span(node)
        old, new_op = _BOOL[type(node.op)]
        for left, right in zip(node.values, node.values[1:]):
            found = self._operator_span(self.pos.node_span(left)[1], self.pos.node_span(right)[0])
            if found is not None and found[2] == old:
                new = self.source[start:found[0]] + new_op + self.source[found[1]:end]
                self._add("boolean", start, end, new, node)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        start, end = self.pos.node_span(node)
        text = self.source[start:end]
        if isinstance(node.op, ast.USub) and text.startswith("-"):
            self._add("sign", start, end, self.source[start + 1:end], node)
        elif isinstance(node.op, ast.Not) and text.startswith("not"):
            # drop "not" and the blank after it, keep any parenthesis of the operand
            self._add("boolean", start, end, self.source[start + 3:end].lstrip(), node)
        if not (isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)):
            self.generic_visit(node)
        else:  # -c: scale the literal, do not flip a sign twice
            self._constant(node.operand, allow_sign=False)

    def visit_Constant(self, node: ast.Constant) -> None:
        self._constant(node, allow_sign=True)

    def _constant(self, node: ast.Constant, allow_sign: bool) -> None:
        start, end = self.pos.node_span(node)
        value = node.value
        if isinstance(value, bool):
            self._add("boolean", start, end, str(not value), node)
        elif isinstance(value, int):
            self._add("constant", start, end, str(value + 1), node)
        elif isinstance(value, float):
            if allow_sign and value != 0.0:
                self._add("sign", start, end, f"-{self.source[start:end]}", node)
            self._add("constant", start, end, repr(2 * value) if value else "1.0", node)

    # -- return short-circuit ----------------------------------------------------------
    def _short_circuit(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name.startswith("__") or any(isinstance(n, ast.Yield | ast.YieldFrom)
                                              for n in ast.walk(node)):
            return
        params = [a.arg for a in node.args.posonlyargs + node.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        if not params or not body or body[0].lineno == node.lineno:
            return
        first = body[0]
        if isinstance(first, ast.Global | ast.Nonlocal):  # must stay first: no safe insertion
            return
        if isinstance(first, ast.Return) and isinstance(first.value, ast.Name) \
                and first.value.id == params[0]:
            return
        start = self.pos.from_bytes(first.lineno, first.col_offset)
        indent = self.source[self.pos.starts[first.lineno - 1]:start]
        if indent.strip():  # e.g. ``if x: y`` on one line with the def: no safe insertion point
            return
        self._add("return", start, start, f"return {params[0]}\n{indent}", node)


def _is_quiet_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "print"
    if isinstance(func, ast.Attribute) and func.attr in _QUIET_CALLS:
        owner = func.value
        return isinstance(owner, ast.Name) and owner.id in _QUIET_OWNERS
    return False


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__")


def _changes_syntax(m: Mutant) -> bool:
    """Whether the patched span still parses and differs from the original in its tree
    (checked on the span alone: whole-file reparses are too slow for large modules)."""
    if not m.original:  # an inserted statement
        return True
    try:
        before, after = _parse_span(m.original), _parse_span(m.replacement)
    except SyntaxError:
        return False
    return ast.dump(before) != ast.dump(after)


def _parse_span(text: str) -> ast.AST:
    """An expression span (possibly over several lines), else a statement (``x += 1``)."""
    try:
        return ast.parse(f"({text}\n)", mode="eval")
    except SyntaxError:
        return ast.parse(text)


def generate_mutants(source: str, module: str, path: str,
                     operators: tuple[str, ...] = OPERATORS) -> list[Mutant]:
    """Every mutant of ``source`` in the given operator classes, sorted by (line, col,
    operator, replacement); each one parses and changes the module's syntax tree.

    >>> [m.id for m in generate_mutants("def f(a):\\n    return a < 1\\n", "m", "m.py",
    ...                                 operators=("compare",))]
    ['m:f:compare:a < 1->a <= 1']
    """
    unknown = set(operators) - set(OPERATORS)
    if unknown:
        raise ValueError(f"operators must be among {', '.join(OPERATORS)}; got {sorted(unknown)}")
    generator = _Generator(source, module, path)
    generator.visit(ast.parse(source))
    kept: dict[tuple, Mutant] = {}
    for m in generator.found:
        if m.operator in operators and _changes_syntax(m):
            kept.setdefault((m.start, m.end, m.replacement), m)
    ordered = sorted(kept.values(), key=lambda m: (m.line, m.col, m.operator, m.replacement))
    seen: dict[tuple, int] = {}
    numbered = []
    for m in ordered:
        key = (m.qualname, m.operator, _id_text(m.original), _id_text(m.replacement))
        seen[key] = seen.get(key, 0) + 1
        numbered.append(replace(m, occurrence=seen[key]) if seen[key] > 1 else m)
    return numbered
