"""The documentation stays inside the repository and agrees with the code it names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".html"}
SEARCHED = ("complots_solver", "tests", "scripts", "docs", "games", "reports")
OLD_RULES = "RULES" + ".md"  # spelled apart so that this file does not match itself
OUTSIDE = "../" + "shared"
DECISION = re.compile(r"\bD-(?:C2-)?\d+\b")


def _text_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in SEARCHED:
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in TEXT_SUFFIXES]
    return [p for p in files if p.is_file() and "__pycache__" not in p.parts]


def test_no_rules_reference_points_outside_the_repository():
    """docs/rules.md is the only rules reference: nothing names a file beside the repository."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in _text_files()
        if OLD_RULES in (text := p.read_text(errors="ignore")) or OUTSIDE in text
    ]
    assert offenders == []


def test_every_decision_named_in_code_is_defined_in_the_docs():
    """Each D-n and D-C2-n cited in code or tests is a bold label in docs/rules.md or
    docs/complots2.md, and rules.md names D-1 to D-13."""
    defined = set()
    for page in (RULES, ROOT / "docs" / "complots2.md"):
        defined |= set(re.findall(r"\*\*(D-(?:C2-)?\d+)\b", page.read_text()))
    assert {f"D-{n}" for n in range(1, 14)} <= defined
    cited = set()
    for path in _text_files():
        if path.suffix == ".py":
            cited |= set(DECISION.findall(path.read_text()))
    assert cited, "the code names its decisions"
    assert cited <= defined, sorted(cited - defined)


def test_readme_examples_write_under_runs_and_its_links_resolve():
    """Every --out/--csv of the README goes under runs/; every relative link exists."""
    readme = (ROOT / "README.md").read_text()
    outputs = re.findall(r"--(?:out|csv)\s+(\S+)", readme)
    assert outputs and all(path.startswith("runs/") for path in outputs), outputs
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for link in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / link).exists(), f"{page.name}: {link}"
    for page in (ROOT / "docs").glob("*.md"):
        for path in re.findall(r"--(?:out|csv)\s+(\S+)", page.read_text()):
            assert not path.startswith("reports/"), f"{page.name}: {path}"


def test_readme_keeps_the_two_set_up_commands():
    """The set-up commands are unchanged: install and quickstart, install and test."""
    readme = (ROOT / "README.md").read_text()
    assert (
        "pip install -e . && complots solve ladder-2-inquisitor -e 1e-3 --out runs/quickstart "
        "--force && complots report runs/quickstart --format html,pdf --out runs/quickstart/report"
    ) in readme
    test_command = "pip install -e '.[test]' && pytest -n 2 -rs"  # -rs: every skip says why
    assert f"{test_command}\n" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().endswith(test_command)  # CI runs exactly the README's command
