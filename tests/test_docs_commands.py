"""Every import of knapcheck that README.md and docs/ show still imports: a moved module cannot break the docs silently.

The docs show knapcheck's modules in code blocks, in inline code and inside ``python -c "..."``
commands (some spread over two lines of prose). Each ``from knapcheck... import ...`` and ``import
knapcheck...`` statement found there is run, all in one fresh interpreter, and each
``python -c`` program is compiled. The rest of a command (a model to build, a solver to time) is
the study's business, not this test's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
IMPORT = re.compile(r"(?:from\s+knapcheck(?:\.\w+)*\s+import\s+\w+(?:\s+as\s+\w+)?(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*"
                    r"|(?<![\w.])import\s+knapcheck(?:\.\w+)*(?:\s+as\s+\w+)?)")
PYTHON_C = re.compile(r"""python3? -c (["'])(.*?)\1""", re.DOTALL)


def imports_shown() -> list[tuple[str, str]]:
    """Each doc's import statements of knapcheck, read with its lines joined (a statement in inline
    code may be wrapped across two lines of prose)."""
    found = set()
    for path in DOCS:
        joined = " ".join(path.read_text().replace("`", " ").split())
        found |= {(path.name, statement) for statement in IMPORT.findall(joined)}
    return sorted(found)


def programs_shown() -> list[tuple[str, str]]:
    return [(path.name, match.group(2)) for path in DOCS for match in PYTHON_C.finditer(path.read_text())]


def compiles(program: str) -> bool:
    """Whether the program compiles as written (a code block) or with its lines joined (inline code
    wrapped in prose, a one-line program of ``;``-separated statements)."""
    for text in (program, " ".join(program.split())):
        try:
            compile(text, "<docs>", "exec")
            return True
        except SyntaxError:
            pass
    return False


def test_the_docs_show_knapcheck_imports_at_all():
    shown = {statement for _, statement in imports_shown()}
    assert "from knapcheck.testing import assert_optimal" in shown
    assert any("knapcheck.solvers.isolation" in statement for statement in shown)


def test_every_knapcheck_import_the_docs_show_imports():
    statements = imports_shown()
    program = (
        "import json, sys\n"
        "failed = []\n"
        "for where, statement in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        exec(statement, {})\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{where}: {statement}: {type(exc).__name__}: {exc}')\n"
        "print(json.dumps(failed))\n"
    )
    run = subprocess.run([sys.executable, "-c", program, json.dumps(statements)], capture_output=True, text=True,
                         cwd=ROOT / "docs", check=True)
    assert json.loads(run.stdout) == []


def test_every_python_c_program_the_docs_show_compiles():
    programs = programs_shown()
    assert len(programs) >= 5
    assert [(where, program) for where, program in programs if not compiles(program)] == []
