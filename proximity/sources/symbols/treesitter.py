"""JavaScript and TypeScript symbols with tree-sitter, into the engine's symbol records.

Definitions come from the module's top-level statements (functions, classes and their
methods, ``const``/``let``/``var`` declarators, TypeScript interfaces, type aliases and enums),
exported or not; imports and re-exports become bindings, ``export * from`` star sites. Members
are symbols of their own: a class's methods and fields, an interface's or object type's
members (fields), an object literal's functions (methods) and other properties (fields), so
``api.load`` and ``api.save`` are two symbols and ``Order.total`` one. The references come from
one query over the tree: calls, ``new``, member chains rooted at a name or ``this``, names that
denote an import or a top-level definition, and member reads through a local whose type is
declared (``order: Order``, ``const c = new Cart()``, ``const { total } = order``), written as
``Order.total`` so the linker resolves them to the field. The parsers are the import graph's
(``proximity.sources.imports.treesitter``), one per language and thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import tree_sitter

from proximity.engine.imports.model import ImportSite
from proximity.engine.symbols.model import (
    Binding,
    CallShape,
    Definition,
    FileSymbols,
    Reference,
)
from proximity.sources.imports.treesitter import tree_sitter_language, tree_sitter_parse
from proximity.sources.symbols.tsshapes import (
    MUTATORS,
    local_names,
    normalised,
    return_shapes,
    signature,
)
from proximity.sources.symbols.tsshapes import node_text as _text

__all__ = ["extract_tree_sitter_symbols"]

_REFERENCES = """
(call_expression function: (identifier) @call)
(call_expression function: (member_expression) @callm)
(new_expression constructor: (identifier) @call)
(new_expression constructor: (member_expression) @callm)
(member_expression) @member
(object_pattern) @pattern
(identifier) @name
(variable_declarator name: (identifier) @typed value: (new_expression))
"""
_TS_REFERENCES = """
(required_parameter pattern: (identifier) @typed type: (type_annotation))
(optional_parameter pattern: (identifier) @typed type: (type_annotation))
(variable_declarator name: (identifier) @typed type: (type_annotation))
"""
"""Locals given a type somewhere in the file: only these are looked up by ``type_of``."""
_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_TYPES = frozenset({"interface_declaration", "type_alias_declaration", "enum_declaration"})
_VARIABLES = frozenset({"lexical_declaration", "variable_declaration"})
_FIELDS = frozenset({"public_field_definition", "field_definition"})
_SIGNATURES = frozenset({"property_signature", "method_signature"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_FUNCTION_SCOPES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "method_definition",
    }
)
_BLOCKS = frozenset({"statement_block", "program"})
_WRITE_PARENTS = frozenset(
    {"assignment_expression", "augmented_assignment_expression", "update_expression"}
)


def _reference_order(r: Reference) -> tuple[object, ...]:
    """A total order: the query's captures of one pattern do not always come in one order."""
    shape = (r.call.positional, r.call.keywords, r.call.starred) if r.call is not None else ()
    return (r.line, r.kind, r.name, r.scope, shape)


_queries: dict[str, tree_sitter.Query] = {}
_lock = threading.Lock()


def _query(language: str) -> tree_sitter.Query:
    hit = _queries.get(language)
    if hit is not None:
        return hit
    with _lock:  # built once per language; read-only afterwards
        if language not in _queries:
            extra = "" if language == "javascript" else _TS_REFERENCES
            _queries[language] = tree_sitter.Query(
                tree_sitter_language(language), _REFERENCES + extra
            )
        return _queries[language]


def _line(node: tree_sitter.Node) -> int:
    return node.start_point[0] + 1


def _end(node: tree_sitter.Node) -> int:
    return node.end_point[0] + 1


def _without(node: tree_sitter.Node, skip: Iterable[tree_sitter.Node]) -> str:
    """``node``'s text with the ``skip`` nodes inside it cut out (a class without its members),
    by bytes (node offsets are byte offsets) and in one pass (a literal may hold thousands)."""
    data, start = node.text or b"", node.start_byte
    pieces, at = [], 0
    for inner in sorted(skip, key=lambda n: n.start_byte):
        a, b = inner.start_byte - start, inner.end_byte - start
        if at <= a <= b:
            pieces.append(data[at:a])
            at = b
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8", "replace")


def _type_name(annotation: tree_sitter.Node | None) -> str | None:
    """``Order`` of ``: Order``, ``: Order | undefined`` or ``: Order | null``; else None."""
    if annotation is None:
        return None
    node = annotation.named_children[0] if annotation.type == "type_annotation" else annotation
    if node is None:
        return None
    if node.type == "union_type":
        named = [c for c in node.named_children if c.type != "literal_type"]
        node = named[0] if len(named) == 1 else node
    return _text(node) if node.type == "type_identifier" else None


def _value_type(value: tree_sitter.Node | None) -> str | None:
    """``Cart`` of ``new Cart(...)``."""
    if value is not None and value.type == "new_expression":
        ctor = value.child_by_field_name("constructor")
        if ctor is not None and ctor.type == "identifier":
            return _text(ctor)
    return None


def _declared_types(scope: tree_sitter.Node) -> dict[str, str]:
    """Names a function's parameters or a block's declarations give a type."""
    out: dict[str, str] = {}
    if scope.type in _FUNCTION_SCOPES:
        params = scope.child_by_field_name("parameters")
        for p in params.named_children if params is not None else ():
            pattern = p.child_by_field_name("pattern")
            found = _type_name(p.child_by_field_name("type"))
            if pattern is not None and pattern.type == "identifier" and found:
                out[_text(pattern)] = found
        return out
    for statement in scope.named_children:
        if statement.type == "export_statement":
            statement = statement.child_by_field_name("declaration") or statement
        if statement.type not in _VARIABLES:
            continue
        for d in statement.named_children:
            target = d.child_by_field_name("name")
            if d.type != "variable_declarator" or target is None or target.type != "identifier":
                continue
            found = _type_name(d.child_by_field_name("type"))
            found = found or _value_type(d.child_by_field_name("value"))
            if found:
                out[_text(target)] = found
    return out


class _Builder:
    def __init__(self, detail: bool) -> None:
        self.detail = detail
        self.definitions: list[tuple[Definition, int, int]] = []  # with byte span
        self.bindings: list[Binding] = []
        self.references: list[Reference] = []
        self.exports: list[tuple[str, str]] = []
        self.stars: list[ImportSite] = []
        self.names: set[str] = set()
        self._declared: dict[tuple[int, int, str], dict[str, str]] = {}
        self.typed: set[str] = set()  # names some declaration in the file gives a type

    def type_of(self, node: tree_sitter.Node, name: str) -> str | None:
        """The declared type of local ``name`` seen from ``node``: the innermost function's
        annotated parameters, then each enclosing block's annotated or ``new``-initialised
        declarations (shadowing by untyped names is not followed)."""
        if name not in self.typed:
            return None
        scope = node.parent
        while scope is not None:
            if scope.type in _FUNCTION_SCOPES or scope.type in _BLOCKS:
                key = (scope.start_byte, scope.end_byte, scope.type)
                found = self._declared.get(key)
                if found is None:
                    found = self._declared[key] = _declared_types(scope)
                if name in found:
                    return found[name]
            scope = scope.parent
        return None

    def define(
        self,
        node: tree_sitter.Node,
        qualname: str,
        kind: str,
        *,
        params: tree_sitter.Node | None = None,
        body: tree_sitter.Node | None = None,
        function: bool = False,
        skip: Iterable[tree_sitter.Node] = (),
    ) -> None:
        header = text = ""
        returns: tuple[str, ...] = ()
        names: tuple[tuple[int, str, bool], ...] = ()
        name = qualname.rsplit(".", 1)[-1]
        if self.detail:
            header = " ".join(_text(params).split()) if params is not None else ""
            text = normalised(_without(body if body is not None else node, skip), name)
            returns = return_shapes(body) if function else ()
            names = local_names(params, body) if function else ()
        params_of = signature(params) if function else None
        definition = Definition(
            qualname, kind, _line(node), _end(node), params_of, False, header, text, returns, names
        )
        self.definitions.append((definition, node.start_byte, node.end_byte))
        if "." not in qualname:
            self.names.add(qualname)

    def bind(
        self,
        local: str,
        site: ImportSite,
        name: str | None,
        node: tree_sitter.Node,
        kind: str = "import",
    ) -> None:
        self.bindings.append(Binding(local, site, name))
        self.names.add(local)
        self.references.append(Reference(local, kind, _line(node)))


def _source(node: tree_sitter.Node) -> ImportSite | None:
    src = node.child_by_field_name("source")
    if src is None:
        return None
    text = _text(src)
    return ImportSite(text[1:-1]) if len(text) >= 2 else None


def _import(b: _Builder, node: tree_sitter.Node) -> None:
    site = _source(node)
    if site is None:
        clause = next((c for c in node.named_children if c.type == "import_require_clause"), None)
        if clause is not None:  # import x = require("./m")
            src = clause.child_by_field_name("source")
            ident = next((c for c in clause.named_children if c.type == "identifier"), None)
            if src is not None and ident is not None:
                b.bind(_text(ident), ImportSite(_text(src)[1:-1]), None, node)
        return
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                b.bind(_text(part), site, "default", node)
            elif part.type == "namespace_import":
                for ident in part.named_children:
                    b.bind(_text(ident), site, None, node)
            elif part.type == "named_imports":
                for spec in part.named_children:
                    name = _text(spec.child_by_field_name("name"))
                    alias = spec.child_by_field_name("alias")
                    b.bind(_text(alias) if alias is not None else name, site, name, node)


def _require(b: _Builder, declarator: tree_sitter.Node) -> bool:
    """``const x = require('./m')`` and ``const {a, b: c} = require('./m')``."""
    value = declarator.child_by_field_name("value")
    if value is None or value.type != "call_expression":
        return False
    func, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if _text(func) != "require" or args is None or not args.named_children:
        return False
    first = args.named_children[0]
    if first.type != "string":
        return False
    site = ImportSite(_text(first)[1:-1])
    name = declarator.child_by_field_name("name")
    if name is not None and name.type == "identifier":
        b.bind(_text(name), site, None, declarator)
    elif name is not None and name.type == "object_pattern":
        for part in name.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                b.bind(_text(part), site, _text(part), declarator)
            elif part.type == "pair_pattern":
                key, local = part.child_by_field_name("key"), part.child_by_field_name("value")
                if local is not None and local.type == "identifier":
                    b.bind(_text(local), site, _text(key), declarator)
    return True


def _member_name(node: tree_sitter.Node) -> str:
    """A class member's, object property's or type member's name (quotes dropped)."""
    name = node.child_by_field_name("name")
    if name is None:
        name = node.child_by_field_name("property")  # JavaScript's field_definition
    if name is None:
        name = node.child_by_field_name("key")  # an object literal's pair
    if name is None or name.type == "computed_property_name":
        return ""
    return _text(name).strip("'\"")


def _function(b: _Builder, node: tree_sitter.Node, qualname: str, kind: str) -> None:
    params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    body = node.child_by_field_name("body")
    b.define(node, qualname, kind, params=params, body=body, function=True)


def _class(b: _Builder, node: tree_sitter.Node, name: str) -> None:
    body = node.child_by_field_name("body")
    members = [c for c in (body.named_children if body else ()) if c.type == "method_definition"]
    fields = [c for c in (body.named_children if body else ()) if c.type in _FIELDS]
    b.define(node, name, "class", params=None, body=body, skip=[*members, *fields])
    for method in members:
        _function(b, method, f"{name}.{_member_name(method)}", "method")
    for field in fields:
        if fname := _member_name(field):
            kind = field.child_by_field_name("type")  # the declared type is the field's header
            b.define(field, f"{name}.{fname}", "field", params=kind, body=field)


def _type(b: _Builder, node: tree_sitter.Node, name: str) -> None:
    """An interface, type alias or enum; the members of an object type are fields."""
    shape = node.child_by_field_name("body") or node.child_by_field_name("value")
    members: list[tree_sitter.Node] = []
    if shape is not None and shape.type in ("interface_body", "object_type"):
        members = [c for c in shape.named_children if c.type in _SIGNATURES]
    b.define(node, name, "type", body=node, skip=members)
    for member in members:
        if mname := _member_name(member):
            b.define(member, f"{name}.{mname}", "field", params=member, body=member)


def _object(b: _Builder, declarator: tree_sitter.Node, name: str, value: tree_sitter.Node) -> None:
    """``const api = { load() {}, save: function () {}, limit: 3 }``, or such a literal as a
    call's first argument (``z.object({...})``, ``Object.freeze({...})``): the functions are
    methods of ``name``, the other properties its fields."""
    literal = value
    if value.type == "call_expression":
        args = value.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        literal = first if first is not None and first.type == "object" else value
    members = [c for c in literal.named_children if c.type in ("method_definition", "pair")]
    members = [m for m in members if _member_name(m)] if literal.type == "object" else []
    schema = literal is not value  # z.object({ total: z.number() }): the values are types
    b.define(declarator, name, "constant", body=value, skip=members)
    for member in members:
        qualname = f"{name}.{_member_name(member)}"
        inner = member.child_by_field_name("value") if member.type == "pair" else None
        if member.type == "method_definition":
            _function(b, member, qualname, "method")
        elif inner is not None and inner.type in _FUNCTION_VALUES:
            params = inner.child_by_field_name("parameters")
            params = params or inner.child_by_field_name("parameter")
            body = inner.child_by_field_name("body")
            b.define(member, qualname, "method", params=params, body=body, function=True)
        else:
            header = inner if schema else None
            b.define(member, qualname, "field", params=header, body=member)


def _declaration(b: _Builder, node: tree_sitter.Node) -> None:
    kind = node.type
    name_node = node.child_by_field_name("name")
    name = _text(name_node)
    if kind in _FUNCTIONS and name:
        b.define(
            node,
            name,
            "function",
            params=node.child_by_field_name("parameters"),
            body=node.child_by_field_name("body"),
            function=True,
        )
    elif kind in _CLASSES and name:
        _class(b, node, name)
    elif kind in _TYPES and name:
        _type(b, node, name)
    elif kind in _VARIABLES:
        for declarator in node.named_children:
            if declarator.type != "variable_declarator" or _require(b, declarator):
                continue
            target = declarator.child_by_field_name("name")
            if target is None or target.type != "identifier":
                continue
            value = declarator.child_by_field_name("value")
            if value is not None and value.type in (
                "arrow_function",
                "function_expression",
                "function",
            ):
                params = value.child_by_field_name("parameters")
                params = params or value.child_by_field_name("parameter")
                b.define(
                    declarator,
                    _text(target),
                    "function",
                    params=params,
                    body=value.child_by_field_name("body"),
                    function=True,
                )
            elif value is not None and value.type == "class":
                _class(b, value, _text(target))
            elif value is not None and _object_like(value):
                _object(b, declarator, _text(target), value)
            else:
                b.define(declarator, _text(target), "constant", body=value)


def _object_like(value: tree_sitter.Node) -> bool:
    if value.type == "object":
        return True
    if value.type != "call_expression":
        return False
    args = value.child_by_field_name("arguments")
    return (
        args is not None and bool(args.named_children) and args.named_children[0].type == "object"
    )


def _export(b: _Builder, node: tree_sitter.Node) -> None:
    site = _source(node)
    declaration = node.child_by_field_name("declaration")
    second = node.child(1)  # export default ...: the keyword comes right after "export"
    default = second is not None and second.type == "default"
    if declaration is not None:
        _declaration(b, declaration)
        name = _text(declaration.child_by_field_name("name"))
        if default and name:
            b.exports.append(("default", name))
        return
    value = node.child_by_field_name("value")
    if default and value is not None:
        if value.type == "identifier":
            b.exports.append(("default", _text(value)))
        return
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
    if site is not None and namespace is not None:  # export * as ns from "./m"
        for ident in namespace.named_children:
            b.bind(_text(ident), site, None, node, "export")
            b.exports.append((_text(ident), _text(ident)))
    elif site is not None and clause is None:  # export * from "./m"
        b.stars.append(site)
    elif clause is not None:
        for spec in clause.named_children:
            local = _text(spec.child_by_field_name("name"))
            alias = spec.child_by_field_name("alias")
            exported = _text(alias) if alias is not None else local
            if site is not None:
                b.bind(exported, site, local, node, "export")
            else:
                b.exports.append((exported, local))
                b.references.append(Reference(local, "export", _line(node)))


def _chain(node: tree_sitter.Node) -> tuple[str | None, tree_sitter.Node | None]:
    """``a.b.c`` / ``this.x.y`` of a member expression, and its root node."""
    parts: list[str] = []
    while node.type == "member_expression":
        prop = node.child_by_field_name("property")
        parts.append(_text(prop))
        obj = node.child_by_field_name("object")
        if obj is None:
            return None, None
        node = obj
    if node.type == "this":
        parts.append("self")
    elif node.type == "identifier":
        parts.append(_text(node))
    else:
        return None, node
    return ".".join(reversed(parts)), node


def _scopes(b: _Builder) -> list[tuple[int, int, str]]:
    """Byte spans of definitions that can own references, innermost found by sorting."""
    return sorted(((s, e, d.qualname) for d, s, e in b.definitions), key=lambda t: (t[0], -t[1]))


def _scope_of(spans: list[tuple[int, int, str]], at: int) -> str:
    found = ""
    for start, end, qualname in spans:
        if start > at:
            break
        if at < end:
            found = qualname  # later starts are nested deeper
    return found


def _shape(call: tree_sitter.Node | None) -> CallShape:
    args = call.child_by_field_name("arguments") if call is not None else None
    if args is None:
        return CallShape()
    children = args.named_children
    starred = any(c.type == "spread_element" for c in children)
    return CallShape(sum(1 for c in children if c.type != "comment"), (), starred)


def _references(b: _Builder, tree: tree_sitter.Tree, query: tree_sitter.Query) -> None:
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    spans = _scopes(b)
    b.typed = {_text(n) for n in captures.get("typed", [])}
    used: set[int] = set()  # start bytes of identifiers already part of a reference
    for node in captures.get("call", []):
        used.add(node.start_byte)
        if (name := _text(node)) in b.names:
            scope = _scope_of(spans, node.start_byte)
            b.references.append(Reference(name, "call", _line(node), scope, _shape(node.parent)))
    members = captures.get("member", [])
    # by span: in a chain a().b().c() several callees start at one byte
    calls = {(n.start_byte, n.end_byte) for n in captures.get("callm", [])}
    for node in members:
        parent = node.parent
        if parent is not None and parent.type == "member_expression":
            continue  # only whole chains
        chain, root = _chain(node)
        if root is not None:
            used.add(root.start_byte)
        is_call = (node.start_byte, node.end_byte) in calls
        _member(b, node, chain, is_call, spans, root)
    for node in captures.get("pattern", []):
        _destructured(b, node, spans)
    wanted = {n.encode() for n in b.names}
    for node in captures.get("name", []):
        if node.start_byte in used or node.text not in wanted:
            continue
        parent = node.parent
        if (
            parent is not None
            and parent.type in _DECLARING
            and parent.child_by_field_name("name") == node
        ):
            continue
        if parent is not None and parent.type in (
            "import_specifier",
            "namespace_import",
            "import_clause",
            "export_specifier",
        ):
            continue
        scope = _scope_of(spans, node.start_byte)
        b.references.append(Reference(_text(node), "use", _line(node), scope))


_DECLARING = frozenset(
    {
        "function_declaration",
        "class_declaration",
        "variable_declarator",
        "method_definition",
        "generator_function_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "abstract_class_declaration",
    }
)


def _written(node: tree_sitter.Node, is_call: bool, rest: str) -> bool:
    """Is the member assigned, updated, or mutated by a call (``this.items.push(x)``)?"""
    parent = node.parent
    write = (
        parent is not None
        and parent.type in _WRITE_PARENTS
        and (parent.child_by_field_name("left") == node or parent.type == "update_expression")
    )
    return write or (is_call and "." in rest and rest.rsplit(".", 1)[-1] in MUTATORS)


def _member(
    b: _Builder,
    node: tree_sitter.Node,
    chain: str | None,
    is_call: bool,
    spans: list[tuple[int, int, str]],
    root_node: tree_sitter.Node | None = None,
) -> None:
    scope = _scope_of(spans, node.start_byte)
    line = _line(node)
    call = _shape(node.parent) if is_call else None
    if chain is None:
        if is_call and b.detail:
            prop = _text(node.child_by_field_name("property"))
            b.references.append(Reference(f"?.{prop}", "call", line, scope, call))
        return
    root, _, rest = chain.partition(".")
    if root == "self" and rest:
        attr = rest.split(".", 1)[0]
        if is_call and "." not in rest:
            b.references.append(Reference(chain, "call", line, scope, call))
            return
        kind = "write" if _written(node, is_call, rest) else "read"
        b.references.append(Reference(f"self.{attr}", kind, line, scope))
        return
    if root in b.names:
        b.references.append(Reference(chain, "call" if is_call else "use", line, scope, call))
        return
    typed = b.type_of(root_node, root) if root_node is not None and rest else None
    if typed is not None and typed in b.names:
        # ``order.total`` with ``order: Order``: a read (or write) of the field Order.total;
        # ``order.describe()`` a call of the member
        attr = rest.split(".", 1)[0]
        if is_call and "." not in rest:
            b.references.append(Reference(f"{typed}.{attr}", "call", line, scope, call))
            return
        kind = "write" if _written(node, is_call, rest) else "read"
        b.references.append(Reference(f"{typed}.{attr}", kind, line, scope))
    if is_call and b.detail:
        b.references.append(Reference(f"?.{chain.rsplit('.', 1)[-1]}", "call", line, scope, call))


def _destructured(
    b: _Builder, pattern: tree_sitter.Node, spans: list[tuple[int, int, str]]
) -> None:
    """``const { total } = order`` (``order: Order``), ``const { total }: Order = ...`` and
    ``function f({ total }: Order)``: reads of the fields ``Order.total``."""
    holder = pattern.parent
    if (
        holder is None
        or holder.child_by_field_name("name" if holder.type == "variable_declarator" else "pattern")
        != pattern
    ):
        return
    typed = _type_name(holder.child_by_field_name("type"))
    if typed is None and holder.type == "variable_declarator":
        value = holder.child_by_field_name("value")
        if value is not None and value.type == "identifier":
            typed = b.type_of(holder, _text(value))
        typed = typed or _value_type(value)
    if typed is None or typed not in b.names:
        return
    scope = _scope_of(spans, pattern.start_byte)
    for part in pattern.named_children:
        key = part
        if part.type == "object_assignment_pattern":  # { total = 0 }
            key = part.child_by_field_name("left") or part
        elif part.type == "pair_pattern":
            key = part.child_by_field_name("key") or part
        if key.type in ("shorthand_property_identifier_pattern", "property_identifier"):
            b.references.append(Reference(f"{typed}.{_text(key)}", "read", _line(key), scope))


def extract_tree_sitter_symbols(
    source: bytes, language: str, *, detail: bool = False
) -> FileSymbols:
    """Symbols of one JavaScript, TypeScript or TSX module (``language`` as the import graph
    names it). A file with syntax errors yields what tree-sitter recovered, with ``error``."""
    tree = tree_sitter_parse(source, language)
    b = _Builder(detail)
    for node in tree.root_node.named_children:
        if node.type == "import_statement":
            _import(b, node)
        elif node.type == "export_statement":
            _export(b, node)
        else:
            _declaration(b, node)
    _references(b, tree, _query(language))
    references = sorted(b.references, key=_reference_order)
    error = "syntax errors (symbols recovered where possible)" if tree.root_node.has_error else None
    return FileSymbols(
        language,
        tuple(d for d, _, _ in b.definitions),
        tuple(references),
        tuple(b.bindings),
        tuple(b.exports),
        tuple(b.stars),
        error,
        detail,
    )
