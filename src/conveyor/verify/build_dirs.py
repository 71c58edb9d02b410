"""What a shared setup made that would build or load the shared tree's code, not a tree's own.

An out-of-source build records the source tree it was configured for: cmake's
`build/CMakeCache.txt` names it (`CMAKE_HOME_DIRECTORY`), as do autotools'
`config.status`, meson's and ninja's `build.ninja` and `compile_commands.json`. Linked
into another tree, that build compiles the shared setup's sources, without the tree's
change (issue 47: `envs/…/tree/test/args-test.cc:119: Failure`), and in the box it is
read-only besides. A link setup made into the shared tree's own files (an npm
workspace's `node_modules/pkg -> ../packages/pkg`) loads that tree's copy the same way.
Such a product is never handed to another tree: each tree is set up on its own.
"""

from __future__ import annotations

from pathlib import Path

# Files a build system writes that name the source tree it builds, by absolute path.
MARKERS = (
    "CMakeCache.txt",
    "config.status",
    "build.ninja",
    "compile_commands.json",
    "Makefile",
    "meson-info/meson-info.json",
)
_MAX_BYTES = 4 * 1024 * 1024


def _names_tree(path: Path, build: Path) -> bool:
    """Whether the marker file at `path` names the build tree by its absolute path."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return False
        text = path.read_bytes()
    except OSError:
        return False
    return str(build).encode() in text or str(build.resolve()).encode() in text


def _marker(product: Path, build: Path) -> str:
    """The marker file of `product` (a file, or one in its folder or a subfolder) naming the
    build tree; "" for none."""
    if product.is_file():
        candidates = [product] if product.name in MARKERS else []
    elif product.is_dir() and not product.is_symlink():
        candidates = [product / m for m in MARKERS]
        candidates += [c / m for c in sorted(product.iterdir())[:64] if c.is_dir() for m in MARKERS]
    else:
        candidates = []
    found = next((c for c in candidates if _names_tree(c, build)), None)
    return str(found.relative_to(build)) if found is not None else ""


def _link_into_tree(product: Path, build: Path, products: tuple[str, ...]) -> str:
    """A link in `product` (two levels deep: `node_modules/@scope/pkg`) into the build
    tree's own files; "" for none."""
    if not product.is_dir() or product.is_symlink():
        return ""
    entries = list(product.iterdir())[:4096]
    entries += [e for d in entries if d.is_dir() and d.name.startswith("@") for e in d.iterdir()]
    root = build.resolve()
    for entry in entries:
        if not entry.is_symlink():
            continue
        target = entry.resolve()
        if target.is_relative_to(root) and target != root:
            top = target.relative_to(root).parts[0]
            if top not in products:
                return f"{entry.relative_to(build)} -> {target.relative_to(root)}"
    return ""


def tree_bound(build: Path, products: tuple[str, ...]) -> tuple[str, ...]:
    """The products that point at the build tree, each with what shows it."""
    found: list[str] = []
    for name in products:
        product = build / name
        marker = _marker(product, build)
        if marker:
            found.append(f"{name} ({marker} names the shared tree)")
            continue
        link = _link_into_tree(product, build, products)
        if link:
            found.append(f"{name} ({link})")
    return tuple(found)
