from __future__ import annotations

import pytest

from proximity.engine.imports import ImportSite
from proximity.sources.imports.treesitter import parse_tree_sitter_imports

TS_SOURCE = b"""
import type { Props } from "./types";
import React, { useState } from 'react';
import './side-effect.css';
export * as helpers from "./helpers";
export { Button } from "./button";
export type { Theme } from "./theme";
import legacy = require("./legacy");
const cfg = require('./config');
// import fake from './commented';
/* export * from "./block-comment"; */
const text = "import nope from './in-string'";
const tpl = `require('./in-template')`;
async function load() {
  const mod = await import('./lazy');
  if (flag) { require("./optional"); }
}
const computed = import(`./pages/${name}`);
"""


def test_typescript_imports_without_comments_or_strings() -> None:
    parsed = parse_tree_sitter_imports(TS_SOURCE, "tsx")
    assert parsed.error is None
    assert parsed.sites == (
        ImportSite("./types", type_only=True),
        ImportSite("react"),
        ImportSite("./side-effect.css"),
        ImportSite("./helpers"),
        ImportSite("./button"),
        ImportSite("./theme", type_only=True),
        ImportSite("./legacy"),
        ImportSite("./config"),
        ImportSite("./lazy", conditional=True, dynamic=True),
        ImportSite("./optional", conditional=True),
    )


def test_javascript_grammar_handles_jsx_and_commonjs() -> None:
    source = b"const x = require('./x');\nexport default () => <div>{require('./y')}</div>;\n"
    sites = parse_tree_sitter_imports(source, "javascript").sites
    assert sites == (ImportSite("./x"), ImportSite("./y", conditional=True))


def test_go_import_block_and_single_import() -> None:
    source = (
        b'package main\nimport "fmt"\nimport (\n\tst "example.com/shop/pkg/store"\n\t_ `embed`\n)\n'
    )
    targets = [s.target for s in parse_tree_sitter_imports(source, "go").sites]
    assert targets == ["fmt", "example.com/shop/pkg/store", "embed"]


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx", "go"])
def test_garbage_does_not_raise_and_is_flagged(language: str) -> None:
    parsed = parse_tree_sitter_imports(b"import {{{ from (((\n\x00\xff", language)
    assert parsed.error is not None
