"""wiki-check's rules (CHK-9): links in changed pages resolve, and new pages are linked.

GitHub wikis (Gollum) address a page by its file name without the extension, with
hyphens for spaces and case ignored, wherever the file sits in the wiki's folders.
A link is `[[Page]]`, `[[Text|Page]]`, a Markdown link `[text](Page)` or a reference
definition `[ref]: Page`. Links with a scheme, an absolute path, a path of folders or
only an anchor are not checked: they point outside the wiki's pages. Code is not text:
fenced blocks and inline code spans are skipped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterator, Mapping
from urllib.parse import unquote

PAGE_EXTENSIONS = (
    ".md",
    ".markdown",
    ".mdown",
    ".mkdn",
    ".mediawiki",
    ".wiki",
    ".textile",
    ".rdoc",
    ".org",
    ".creole",
    ".rst",
    ".asciidoc",
    ".adoc",
    ".pod",
)
# Pages GitHub shows around every other page, and the wiki's front page: never "unlinked".
SPECIAL = ("_sidebar", "_footer", "_header", "home")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`+[^`]*`+")
_WIKI_LINK = re.compile(r"\[\[([^\]\n]+)\]\]")
_MD_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def is_page(path: str) -> bool:
    """Whether a wiki file is a page (rather than an image or another file)."""
    return path.lower().endswith(PAGE_EXTENSIONS)


def page_key(name: str) -> str:
    """How the wiki matches a page name or file: its stem, spaces as hyphens, any case."""
    base = posixpath.basename(name.strip())
    stem, ext = posixpath.splitext(base)
    if ext.lower() in PAGE_EXTENSIONS:
        base = stem
    return base.replace(" ", "-").lower()


def _text_lines(text: str) -> Iterator[str]:
    """The page's lines outside fenced code blocks, with inline code spans removed."""
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield _CODE_SPAN.sub("", line)


def _target(raw: str) -> str | None:
    """The page or file a link names, or None when the link points outside the pages."""
    target = unquote(raw.strip()).split("#", 1)[0].strip()
    target = target.removeprefix("./")
    if not target or _SCHEME.match(target) or target.startswith("/") or "/" in target:
        return None
    return target


def links_of(text: str) -> tuple[str, ...]:
    """Every page or file the page's text links to, in order (duplicates kept)."""
    found: list[str] = []
    for line in _text_lines(text):
        for inner in _WIKI_LINK.findall(line):
            target = _target(inner.rsplit("|", 1)[-1])
            if target is not None:
                found.append(target)
        raws = _MD_LINK.findall(line)
        if definition := _REF_DEF.match(line):
            raws.append(definition.group(1))
        found += [t for raw in raws if (t := _target(raw)) is not None]
    return tuple(found)


def _resolves(target: str, pages: Collection[str], files: Collection[str]) -> bool:
    if posixpath.splitext(target)[1] and not is_page(target):
        return target.lower() in files
    return page_key(target) in pages


def wiki_findings(
    texts: Mapping[str, str],
    paths: Collection[str],
    changed: Collection[str],
    added: Collection[str],
) -> tuple[str, ...]:
    """What wiki-check finds wrong; empty when it passes.

    `texts` holds every page's text at the head (by path), `paths` every file of the
    wiki there, `changed` the pages the issue added or edited and `added` the pages it
    added. A link in a changed page must name a page (or file) of the wiki; an added
    page must be linked from `_Sidebar` or another page.
    """
    pages = {page_key(p) for p in paths if is_page(p)}
    files = {posixpath.basename(p).lower() for p in paths}
    found: list[str] = []
    for path in sorted(p for p in changed if p in texts):
        missing = [t for t in links_of(texts[path]) if not _resolves(t, pages, files)]
        for target in dict.fromkeys(missing):
            found.append(f"{path}: links to {target!r}, which is no page or file of the wiki")
    linked: set[str] = set()
    for path, text in texts.items():
        own = page_key(path)
        linked.update(key for t in links_of(text) if (key := page_key(t)) != own)
    for path in sorted(added):
        key = page_key(path)
        if is_page(path) and key not in SPECIAL and key not in linked:
            found.append(f"{path}: a new page that neither _Sidebar nor another page links to")
    return tuple(found)
