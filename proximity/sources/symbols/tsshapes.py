"""Pieces of a JavaScript/TypeScript definition read from its tree-sitter nodes: parameters,
normalised text (identity modulo the name) and return shapes."""

from __future__ import annotations

import tree_sitter

from proximity.engine.symbols.model import Param, Signature

__all__ = ["MUTATORS", "local_names", "node_text", "normalised", "return_shapes", "signature"]

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


MUTATORS = frozenset(
    [
        "push",
        "pop",
        "shift",
        "unshift",
        "splice",
        "sort",
        "reverse",
        "fill",
        "set",
        "delete",
        "clear",
        "add",
    ]
)
"""Methods of arrays, maps and sets that change the object they are called on."""
_PATTERNS = frozenset(
    {
        "object_pattern",
        "array_pattern",
        "pair_pattern",
        "assignment_pattern",
        "object_assignment_pattern",
        "rest_pattern",
        "required_parameter",
        "optional_parameter",
    }
)
_TARGET_FIELD = {
    "pair_pattern": "value",
    "assignment_pattern": "left",
    "object_assignment_pattern": "left",
    "required_parameter": "pattern",
    "optional_parameter": "pattern",
    "variable_declarator": "name",
    "assignment_expression": "left",
    "augmented_assignment_expression": "left",
    "for_in_statement": "left",
    "catch_clause": "parameter",
}
"""The field of each node that holds what it binds (patterns nest through these)."""
_DECLARES = frozenset(
    {"variable_declarator", "for_in_statement", "catch_clause", "formal_parameters"}
)
_IDENTIFIERS = frozenset(
    {"identifier", "shorthand_property_identifier_pattern", "shorthand_property_identifier"}
)


def _binder(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The declaration, parameter list, assignment or update that binds ``node`` (an
    identifier, possibly deep in a destructuring pattern), or ``None`` where it is read."""
    child, parent = node, node.parent
    while parent is not None:
        kind = parent.type
        if kind == "update_expression" or kind == "formal_parameters":
            return parent
        field = _TARGET_FIELD.get(kind)
        if field is None:
            return parent if kind in ("object_pattern", "array_pattern", "rest_pattern") else None
        if parent.child_by_field_name(field) != child:
            return None
        if kind not in _PATTERNS:
            return parent
        child, parent = parent, parent.parent
    return None


def _written_through(node: tree_sitter.Node) -> str | None:
    """The part of its object the chain ``node`` starts (``rows[0].x``, ``rows.push``)
    writes, as a local key (``rows[]``, ``o.x``), when the chain is assigned, updated or
    mutated by a container method; else None."""
    top, link = node, None
    while top.parent is not None and top.parent.type in (
        "member_expression",
        "subscript_expression",
    ):
        if top.parent.child_by_field_name("object") != top:
            return None
        top = top.parent
        link = link or top
    holder = top.parent
    if link is None or holder is None:
        return None
    name = node_text(node)
    if link.type == "member_expression":
        key = name + "." + node_text(link.child_by_field_name("property"))
    else:
        key = name + "[]"
    if holder.type in ("assignment_expression", "augmented_assignment_expression"):
        return key if holder.child_by_field_name("left") == top else None
    if holder.type == "update_expression":
        return key
    if holder.type == "call_expression" and top.type == "member_expression":
        # rows.push(v) changes the container's content; o.x.push(v) the field x holds
        if node_text(top.child_by_field_name("property")) not in MUTATORS:
            return None
        return name + "[]" if link is top else key
    return None


def _walk(nodes: list[tree_sitter.Node]) -> list[tree_sitter.Node]:
    """Every identifier under ``nodes``, in document order."""
    out, stack = [], list(reversed(nodes))
    while stack:
        node = stack.pop()
        if node.type in _IDENTIFIERS:
            out.append(node)
        stack.extend(reversed(node.named_children))
    return out


def local_names(
    params: tree_sitter.Node | None, body: tree_sitter.Node | None
) -> tuple[tuple[int, str, bool], ...]:
    """Where a function's body reads and writes its local names, as ``(line, name, written)``
    (the Python extractor's rule, :func:`proximity.engine.symbols.pyast.local_names`): its
    parameters and the names its declarations, loops and ``catch`` bind are local; a name is
    written where it is bound, assigned or updated; where an item or member of it is assigned
    (``rows[0] = v``, ``o.x = 1``) or a mutating container method is called on it
    (``rows.push(v)``), the part of its object is written (``rows[]``, ``o.x``); it is read
    everywhere else."""
    nodes = [n for n in (params, body) if n is not None]
    found = _walk(nodes)
    binders = [_binder(n) for n in found]
    local = {
        node_text(n)
        for n, b in zip(found, binders, strict=True)
        if b is not None and (b.type in _DECLARES or b.type in ("object_pattern", "array_pattern"))
    }
    if params is not None and params.type == "identifier":  # x => ...
        local.add(node_text(params))
    out: set[tuple[int, str, bool]] = set()
    for n, b in zip(found, binders, strict=True):
        name = node_text(n)
        if name not in local or (params is not None and n.start_byte < params.end_byte):
            continue
        line = n.start_point[0] + 1
        if b is not None and n.type != "shorthand_property_identifier":
            out.add((line, name, True))
        elif (part := _written_through(n)) is not None:
            out.add((line, part, True))
        else:
            out.add((line, name, False))
    return tuple(sorted(out))


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
