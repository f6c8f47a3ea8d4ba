"""README.md and docs/*.md: every relative link resolves, none leaves the repository, and the README
is short and starts with the two commands a newcomer runs first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 200

FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)
INDENTED = re.compile(r"^(?: {4}|\t).*$", re.M)
INLINE_CODE = re.compile(r"`+[^`\n]*`+")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.M)
AUTOLINK = re.compile(r"<((?:[a-z][a-z0-9+.-]*:|www\.)[^>\s]*)>", re.I)
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets and parentheses are code."""
    text = FENCE.sub("", text)
    text = INDENTED.sub("", text)
    return INLINE_CODE.sub("", text)


def links(page: Path) -> list[str]:
    text = prose(page.read_text(encoding="utf-8"))
    found = []
    for pattern in (INLINE_LINK, REFERENCE_DEFINITION, AUTOLINK, HTML_LINK):
        found += pattern.findall(text)
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for _, heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def _relative(path: Path, root: Path = ROOT) -> str:
    return path.relative_to(root).as_posix()


def problems_of(page: Path, root: Path = ROOT) -> list[str]:
    """Each link of ``page`` that is broken or leaves ``root``, with why."""
    problems = []
    for target in links(page):
        if re.match(r"^(?:[a-z][a-z0-9+.-]*:|//|www\.)", target, re.I):
            problems.append(f"{target}: leaves the repository")
            continue
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.is_relative_to(root):
            problems.append(f"{target}: leaves the repository")
            continue
        name = _relative(destination, root)
        if not destination.exists():
            problems.append(f"{target}: {name} does not exist")
            continue
        if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            problems.append(f"{target}: {name} has no heading #{anchor}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=_relative)
def test_every_link_resolves_inside_the_repository(page):
    assert problems_of(page) == []


def test_the_docs_have_a_page_per_job_and_solver_topic():
    for name in ("check", "gate", "campaigns", "harvest", "solvers", "benchmarks", "gpu"):
        assert (ROOT / "docs" / f"{name}.md").is_file(), name
    assert (ROOT / "docs" / "pr-gate.yml").is_file()


def test_the_readme_is_short_and_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES
    assert lines[0].startswith("# ")
    blocks = [(m.start(), m.group(0)) for m in FENCE.finditer(text)][:2]
    assert len(blocks) == 2
    first_start, first = blocks[0]
    second_start, second = blocks[1]
    before = [line for line in text[:first_start].splitlines()[1:] if line.strip()]
    assert len(before) <= 8, "after the title, a short paragraph and then the first command"
    between = [line for line in text[first_start + len(first) : second_start].splitlines() if line.strip()]
    assert len(between) <= 2, "the second command follows the first"
    install = ('pip install torch==2.13.0', 'pip install -e ".[test]"')
    for block, job in ((first, "knapcheck check"), (second, "pytest -n auto")):
        (command,) = [line for line in block.splitlines()[1:-1] if line.strip()]
        assert all(step in command for step in install), command
        assert command.rstrip().endswith(job), command


def test_the_checker_catches_what_it_should(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "check.md").write_text("# Check\n\n## Targets: `ours` and the rest\n")
    probe = tmp_path / "docs" / "probe.md"
    probe.write_text(
        "# Probe\n\n"
        "[web](https://example.org/x) [out](../../outside.md) [gone](missing.md) [bad anchor](check.md#no-such-heading)\n"
        "[good](check.md#targets-ours-and-the-rest) [self](#probe) `[in code](nowhere.md)`\n"
        "<http://example.org/auto>\n\n"
        "    [indented code](nowhere.md)\n\n"
        "```\n[fenced code](nowhere.md)\n```\n"
    )
    assert problems_of(probe, root=tmp_path) == [
        "https://example.org/x: leaves the repository",
        "../../outside.md: leaves the repository",
        "missing.md: docs/missing.md does not exist",
        "check.md#no-such-heading: docs/check.md has no heading #no-such-heading",
        "http://example.org/auto: leaves the repository",
    ]
