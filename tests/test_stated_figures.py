"""The timings the README and the docs state about the project's own runs come from one source,
``docs/measurements.toml`` (issue 25: the demo's length was given four ways).

Every duration said in a paragraph about the demo or the test suite must be one that the file
records for it, so a page that keeps an old figure, or rounds it its own way, fails here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FACTS = tomllib.loads((ROOT / "docs" / "measurements.toml").read_text())

#: the pages that speak of the demo and the suite (the generated docs site copies these)
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "empire_envs" / "training" / "demo.py",
    ROOT / "experiments" / "demo.py",
    ROOT / "Makefile",
]

#: a duration as the pages write one: "4 min 20 s", "215 s", "2.5 minutes", "about two minutes"
DURATION = re.compile(
    r"\b\d+ min \d+ s\b|\b\d+(?:\.\d+)? ?(?:min|minutes|seconds|s)\b"
    r"|\b(?:one|two|three|four|five|six|ten)(?: and a half)? minutes?\b"
)
#: what makes a paragraph one about each measured job
TOPICS = {
    "make_demo": re.compile(r"\bdemo\b(?!\.toml)", re.IGNORECASE),  # the job, not its config file
    "make_test": re.compile(r"make test`? (?:took|takes|ran|runs)"),
}


def paragraphs(text: str) -> list[str]:
    """The units a figure belongs to: blank-line separated paragraphs, with each item of a list
    or a table, each heading and each line of a code block on its own."""
    units: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        items: list[str] = []
        in_code = False
        for line in block.splitlines():
            stripped = line.lstrip()
            starts_item = in_code or stripped.startswith(("|", "- ", "* ", "#", "```"))
            if stripped.startswith("```"):
                in_code = not in_code
            if starts_item or not items:
                items.append(line)
            else:
                items[-1] += "\n" + line
        units += items
    return units


def recorded(*tables: str) -> set[str]:
    return {str(value) for table in tables for key, value in FACTS[table].items() if key != "commit"}


ALLOWED = {"make_demo": recorded("make_demo", "sb3_demo"), "make_test": recorded("make_test")}


def stated(topic: str) -> list[tuple[str, str]]:
    """(page, duration) for every duration in a paragraph about ``topic``."""
    found = []
    for page in PAGES:
        for block in paragraphs(page.read_text(encoding="utf-8")):
            if TOPICS[topic].search(block):
                found += [(page.name, match) for match in DURATION.findall(block)]
    return found


@pytest.mark.parametrize("topic", list(TOPICS))
def test_every_duration_said_of_a_measured_job_is_the_measured_one(topic: str) -> None:
    said = stated(topic)
    assert said, f"no page states a duration of {topic}"  # the check below must see something
    wrong = [(page, duration) for page, duration in said if duration not in ALLOWED[topic]]
    assert not wrong, f"durations not in docs/measurements.toml [{topic}]: {wrong}"


def test_the_readme_states_the_headline_figures() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    demo, suite = FACTS["make_demo"], FACTS["make_test"]
    assert f"({demo['wall']} from a fresh clone)" in readme  # the first command's comment
    assert f"`make test` took {suite['wall']}" in readme
    assert f"{suite['tests']} tests" in readme and suite["suite"] in readme


def test_the_duration_pattern_catches_the_old_phrasings() -> None:
    """The ways the demo's length was once written are all read as durations."""
    for phrase in ("4.5 min", "about 2.5 minutes", "about two minutes", "three and a half minutes", "4 min 20 s"):
        assert DURATION.search(phrase), phrase
