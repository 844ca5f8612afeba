"""Pieces of a JavaScript/TypeScript definition read from its tree-sitter nodes: parameters,
normalised text (identity modulo the name) and return shapes."""

from __future__ import annotations

import tree_sitter

from proximity.engine.symbols.model import Param, Signature

__all__ = ["node_text", "normalised", "return_shapes", "signature"]

_NESTED = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "class_declaration",
        "class",
        "function",
    }
)


def node_text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _param(node: tree_sitter.Node) -> Param | None:
    kind = node.type
    if kind == "identifier":
        return Param(node_text(node))
    if kind == "assignment_pattern":
        return Param(node_text(node.child_by_field_name("left")), default=True)
    if kind == "rest_pattern":
        return Param(
            node_text(node.named_children[0]) if node.named_children else "rest", "varargs"
        )
    if kind in ("required_parameter", "optional_parameter"):
        pattern = node.child_by_field_name("pattern")
        if pattern is None or pattern.type == "this":
            return None
        if pattern.type == "rest_pattern":
            return _param(pattern)
        default = kind == "optional_parameter" or node.child_by_field_name("value") is not None
        return Param(node_text(pattern) if pattern.type == "identifier" else "{…}", default=default)
    if kind in ("object_pattern", "array_pattern"):
        return Param("{…}")
    return None


def signature(node: tree_sitter.Node | None) -> Signature:
    if node is None:
        return Signature()
    if node.type == "identifier":  # x => ...
        return Signature((Param(node_text(node)),))
    params = (_param(child) for child in node.named_children)
    return Signature(tuple(p for p in params if p is not None))


def _word(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def _replace_name(line: str, name: str) -> str:
    """``name`` as a whole identifier replaced by NUL; by hand, not a regex per name (a file
    with thousands of fields would compile thousands, past ``re``'s cache)."""
    out, at, size = [], 0, len(name)
    while (k := line.find(name, at)) >= 0:
        end = k + size
        whole = (k == 0 or not _word(line[k - 1])) and (end == len(line) or not _word(line[end]))
        out.append(line[at:k] + ("\0" if whole else name))
        at = end
    out.append(line[at:])
    return "".join(out)


def normalised(text: str, name: str) -> str:
    out = []
    for raw in text.splitlines():
        line = " ".join(raw.split())  # spacing is not a change
        if line and not line.startswith("//"):
            out.append(_replace_name(line, name) if name else line)
    return "\n".join(out)


def _return_kind(node: tree_sitter.Node | None) -> str:
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node is None or node.type in ("null", "undefined") or node_text(node) == "undefined":
        return "none"
    kind = node.type
    if kind == "object":
        keys = []
        for child in node.named_children:
            if child.type == "shorthand_property_identifier":
                keys.append(node_text(child))
            elif child.type == "pair":
                keys.append(node_text(child.child_by_field_name("key")).strip("'\""))
            else:
                return "dict"
        return "dict{" + ",".join(sorted(keys)) + "}"
    if kind == "array":
        return f"tuple/{len(node.named_children)}"
    simple = {
        "string": "str",
        "template_string": "str",
        "number": "number",
        "true": "bool",
        "false": "bool",
        "arrow_function": "function",
        "function_expression": "function",
    }
    if kind in simple:
        return simple[kind]
    if kind in ("call_expression", "new_expression", "await_expression"):
        return "call"
    return "expr"


def return_shapes(body: tree_sitter.Node | None) -> tuple[str, ...]:
    if body is None:
        return ("none",)
    if body.type != "statement_block":  # an arrow function's expression body
        return (_return_kind(body),)
    kinds: set[str] = set()
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            kinds.add(_return_kind(node.named_children[0] if node.named_children else None))
        elif node.type not in _NESTED:
            stack.extend(node.named_children)
    return tuple(sorted(kinds or {"none"}))
