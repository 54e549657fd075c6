#!/usr/bin/env python3
"""Check the relative links of README.md, docs/**/*.md and the READMEs of benchmark/results/.

Every markdown link or image whose target is not a URL must point at a file or folder that exists;
a `#fragment` on a link to a markdown file must match one of its headings (GitHub's anchors).
Links inside fenced code blocks are ignored. Prints each broken link and exits 1 if there is one.

    python3 tools/check_doc_links.py [ROOT]
"""
import re
import sys
from pathlib import Path

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def anchors(md: Path) -> set:
    """GitHub's heading anchors of a markdown file (duplicates numbered -1, -2, ...)."""
    seen, out, fenced = {}, set(), False
    for line in md.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(md: Path):
    fenced = False
    for no, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(line):
            yield no, m.group(1)


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    files += sorted((root / "benchmark" / "results").rglob("README.md"))
    bad, checked = 0, 0
    for md in files:
        for no, target in links(md):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
                continue
            checked += 1
            path, _, frag = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            where = f"{md.relative_to(root)}:{no}: {target}"
            if not dest.exists():
                print(f"{where}: no such file")
                bad += 1
            elif frag and dest.suffix == ".md" and frag not in anchors(dest):
                print(f"{where}: no heading #{frag} in {dest.relative_to(root)}")
                bad += 1
    print(f"{checked} relative links in {len(files)} files, {bad} broken")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
