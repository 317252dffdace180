#!/usr/bin/env python3
"""List public symbols of the library modules that have no doc comment.

    python3 scripts/check_doc_comments.py            # the library modules
    python3 scripts/check_doc_comments.py --examples # also: top-level public
                                                     # declarations whose doc
                                                     # comment has no example
    python3 scripts/check_doc_comments.py Sources/UVCombineHTTP

Prints one `path:line: kind name` per symbol and exits 1 when it found any,
0 otherwise (so `make docs` can run it).

A symbol is public when it is declared `public` or `open`, or when it sits
where Swift makes it public without saying so: a requirement of a public
protocol, a case of a public enum, a member of a `public extension`. Members
of a non-public type are not public, whatever they say. A doc comment is a
run of `///` lines (or a `/** */` block) right before the declaration and
its attributes. Extensions themselves are not symbols (DocC documents their
members), so they need none.

"An example" (`--examples`) means a code block (```) in the doc comment. It
is asked of the declarations a reader meets first: types, protocols, and
functions and initialisers declared at file level or directly in an
extension (the operators on `Publisher`, conveniences on `Scheduler`).
Members that implement a protocol requirement (`receive(subscriber:)`,
`request(_:)`) are documented, but their example is the type's.

This is a line-based reader of Swift, not a parser: it relies on the
project's formatting (one declaration per line, attributes before it or on
its line) and understands strings, comments and braces well enough for
that.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

DEFAULT_ROOTS = [
    "Sources/UVCombineCore",
    "Sources/UVCombineDispatch",
    "Sources/UVCombineFoundation",
    "Sources/UVCombineLoop",
    "Sources/UVCombineLoopFoundation",
    "Sources/UVCombineHTTP",
    "Sources/UVCombineWebSocketCore",
    "Sources/UVCombineWebSocket",
    "Sources/UVCombine",
    "Sources/UVCombineTesting",
]

DECL_KEYWORDS = {
    "func", "var", "let", "init", "subscript", "struct", "class", "enum",
    "protocol", "typealias", "associatedtype", "case", "actor", "extension",
    "deinit", "macro", "operator", "precedencegroup",
}
TYPE_KEYWORDS = {"struct", "class", "enum", "protocol", "actor"}
MODIFIERS = {
    "public", "open", "internal", "private", "fileprivate", "package",
    "static", "class", "final", "override", "mutating", "nonmutating",
    "convenience", "required", "lazy", "weak", "unowned", "indirect",
    "nonisolated", "dynamic", "optional", "prefix", "postfix", "infix",
    "consuming", "borrowing", "distributed", "isolated",
}
NON_PUBLIC = {"internal", "private", "fileprivate", "package"}

ATTRIBUTE = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*(\([^()]*(\([^()]*\)[^()]*)*\))?\s*")
IDENT = re.compile(r"[A-Za-z_`][A-Za-z0-9_`]*")


@dataclass
class Scope:
    """What a `{` opened: a type or extension body, or anything else."""

    kind: str            # "type:protocol", "type:enum", "type:struct", ..., "extension", "file", "other"
    public: bool         # members can be public at all
    implicit: bool       # a `public extension`: members without a modifier are public


@dataclass
class Finding:
    path: str
    line: int
    kind: str
    name: str
    problem: str


@dataclass
class Reader:
    """Strips comments and strings from lines, remembering doc comments."""

    in_block_comment: int = 0
    block_is_doc: bool = False
    in_multiline_string: bool = False
    doc_lines: list[str] = field(default_factory=list)

    def code(self, line: str) -> tuple[str, str | None]:
        """Returns the line's code (strings emptied, comments removed) and,
        when the whole line is a doc comment line, its text."""
        stripped = line.strip()
        if not self.in_block_comment and not self.in_multiline_string:
            if stripped.startswith("///"):
                return "", stripped[3:]
        out = []
        i = 0
        doc_text = None
        starts_doc_block = False
        while i < len(line):
            if self.in_multiline_string:
                end = line.find('"""', i)
                if end < 0:
                    return "".join(out), None
                self.in_multiline_string = False
                out.append('""')
                i = end + 3
                continue
            if self.in_block_comment:
                if line.startswith("/*", i):
                    self.in_block_comment += 1
                    i += 2
                elif line.startswith("*/", i):
                    self.in_block_comment -= 1
                    i += 2
                else:
                    i += 1
                continue
            ch = line[i]
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                self.in_block_comment = 1
                self.block_is_doc = line.startswith("/**", i) and not line.startswith("/**/", i)
                starts_doc_block = self.block_is_doc
                i += 2
                continue
            if line.startswith('"""', i):
                self.in_multiline_string = True
                i += 3
                continue
            if ch == '"':
                # A one-line string, with escapes and interpolations.
                j = i + 1
                depth = 0
                while j < len(line):
                    if line[j] == "\\" and j + 1 < len(line):
                        if line[j + 1] == "(":
                            depth += 1
                            j += 2
                            continue
                        j += 2
                        continue
                    if depth and line[j] == ")":
                        depth -= 1
                    elif not depth and line[j] == '"':
                        break
                    j += 1
                out.append('""')
                i = j + 1
                continue
            out.append(ch)
            i += 1
        if starts_doc_block or (self.block_is_doc and self.in_block_comment):
            doc_text = stripped
        return "".join(out), doc_text


def declaration(code: str) -> tuple[list[str], str, str] | None:
    """(modifiers, keyword, name) when the line declares something."""
    rest = code.strip()
    while rest.startswith("@"):
        m = ATTRIBUTE.match(rest)
        if not m:
            return None
        rest = rest[m.end():]
    modifiers: list[str] = []
    while True:
        m = IDENT.match(rest)
        if not m:
            return None
        word = m.group(0)
        after = rest[m.end():]
        if word in MODIFIERS and not (word == "class" and re.match(r"\s+[A-Z_]", after)):
            # `private(set)` and friends.
            paren = re.match(r"\((set|get)\)", after)
            if paren:
                after = after[paren.end():]
                word = word + "(set)"
            modifiers.append(word)
            rest = after.lstrip()
            continue
        if word in DECL_KEYWORDS:
            tail = after.lstrip()
            if word in ("init", "subscript", "deinit"):
                sig = re.match(r"[?!]?\s*(<[^>]*>)?\s*\([^)]*\)?", tail)
                name = word + (sig.group(0).strip() if sig else "")
                name = re.sub(r"\s+", " ", name)
            elif word == "case":
                name = tail.split("(")[0].split("=")[0].strip()
            else:
                n = re.match(r"[A-Za-z_`][A-Za-z0-9_`.]*|[^\sA-Za-z0-9_(<]+", tail)
                name = n.group(0) if n else "?"
                if word == "func":
                    params = re.match(re.escape(name) + r"\s*(<[^>]*>)?\s*\(([^)]*)", tail)
                    if params:
                        labels = []
                        for p in params.group(2).split(","):
                            p = p.strip()
                            if p:
                                labels.append(p.split(":")[0].split()[0] + ":")
                        name = name + "(" + "".join(labels) + ")"
            return modifiers, word, name
        return None


def scan(path: str, want_examples: bool) -> tuple[list[Finding], int]:
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    reader = Reader()
    stack: list[Scope] = [Scope("file", True, False)]
    findings: list[Finding] = []
    checked = 0
    doc: list[str] = []       # the doc comment waiting for a declaration
    attribute_paren = 0       # inside a multi-line attribute's arguments
    pending_scope: Scope | None = None

    for number, line in enumerate(lines, 1):
        code, doc_text = reader.code(line)
        if doc_text is not None and not code.strip():
            doc.append(doc_text)
            continue
        stripped = code.strip()
        if not stripped:
            if not line.strip():
                doc = []      # a blank line ends a doc comment's reach
            continue
        if attribute_paren:
            attribute_paren += stripped.count("(") - stripped.count(")")
            continue
        if stripped.startswith("#"):
            # #if / #else / #endif keep the doc comment before them.
            continue
        scope = stack[-1]
        decl = declaration(code) if scope.kind != "other" else None
        if decl is None and stripped.startswith("@") and ATTRIBUTE.sub("", stripped).strip() == "":
            # An attribute line; the declaration follows. A multi-line one
            # leaves parentheses open.
            attribute_paren = max(0, stripped.count("(") - stripped.count(")"))
            continue
        if decl is not None:
            modifiers, keyword, name = decl
            explicit = {m.split("(")[0] for m in modifiers}
            if keyword == "case" and scope.kind != "type:enum":
                decl = None
            elif keyword == "extension":
                public = "public" in explicit
                pending_scope = Scope("extension", True, public)
            else:
                if explicit & {"public", "open"}:
                    public = scope.public
                elif explicit & NON_PUBLIC:
                    public = False
                else:
                    public = scope.public and (
                        scope.kind == "type:protocol"
                        or (scope.kind == "type:enum" and keyword == "case")
                        or (scope.kind == "extension" and scope.implicit)
                    )
                if keyword in ("deinit",):
                    public = False
                if public:
                    checked += 1
                    top = scope.kind in ("file", "extension")
                    if not doc:
                        findings.append(Finding(path, number, keyword, name, "no doc comment"))
                    elif want_examples and not any("```" in d for d in doc):
                        if keyword in TYPE_KEYWORDS or (
                            top and keyword in ("func", "init", "subscript")
                        ):
                            findings.append(Finding(path, number, keyword, name, "no example"))
                if keyword in TYPE_KEYWORDS:
                    pending_scope = Scope("type:" + keyword, public, False)
        doc = []
        # Braces: the first `{` after a type or extension declaration opens
        # its body; every other brace opens an "other" scope.
        for ch in code:
            if ch == "{":
                if pending_scope is not None:
                    stack.append(pending_scope)
                    pending_scope = None
                else:
                    stack.append(Scope("other", False, False))
            elif ch == "}":
                if len(stack) > 1:
                    stack.pop()
    return findings, checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="*", default=DEFAULT_ROOTS)
    parser.add_argument("--examples", action="store_true",
                        help="also list types and top-level functions whose doc comment has no example")
    args = parser.parse_args()
    findings: list[Finding] = []
    checked = 0
    paths = []
    for root in args.roots:
        if os.path.isfile(root):
            paths.append(root)
            continue
        for directory, _, files in sorted(os.walk(root)):
            paths += [os.path.join(directory, n) for n in sorted(files) if n.endswith(".swift")]
    for path in paths:
        found, count = scan(path, args.examples)
        findings += found
        checked += count
    for f in findings:
        print(f"{f.path}:{f.line}: {f.problem}: {f.kind} {f.name}")
    if findings:
        print(f"{len(findings)} of {checked} public symbols to document", file=sys.stderr)
        return 1
    print(f"{checked} public symbols, each with a doc comment"
          + (" (and an example where asked)" if args.examples else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
