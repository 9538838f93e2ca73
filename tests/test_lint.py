"""The registry's own contract: every claim has a control, a paper with a note, a cited source."""

from pathlib import Path

import pytest

from theorems import PAPERS, all_claims
from theorems.core import Kind

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = all_claims()
PAPERS_WITH_CLAIMS = sorted({c.paper for c in CLAIMS})


def test_there_are_claims():
    assert len(CLAIMS) >= 10


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_is_well_formed(claim):
    assert claim.paper in PAPERS
    assert callable(claim.check) and callable(claim.control)
    assert claim.check is not claim.control, "the control must differ from the check"
    assert claim.control_description.strip()
    assert isinstance(claim.kind, Kind)
    assert (ROOT / "paper_notes" / f"{claim.paper}.md").exists(), f"no note for {claim.paper}"


@pytest.mark.parametrize("paper", PAPERS_WITH_CLAIMS)
def test_every_paper_with_a_module_has_claims_and_note(paper):
    assert (ROOT / "theorems" / f"{paper}.py").exists()
    note = (ROOT / "paper_notes" / f"{paper}.md").read_text()
    for claim in (c for c in CLAIMS if c.paper == paper):
        assert claim.id in note, f"paper_notes/{paper}.md does not mention {claim.id}"


def test_every_theorems_module_registers_claims():
    modules = {p.stem for p in (ROOT / "theorems").glob("*.py")} - {"__init__", "papers", "strategies"}
    assert modules <= set(PAPERS), f"modules that are not paper keys: {modules - set(PAPERS)}"
    assert modules == set(PAPERS_WITH_CLAIMS), "a paper module registers no claims"


def test_index_lists_all_papers():
    index = (ROOT / "paper_notes" / "README.md").read_text()
    for key in PAPERS:
        assert f"`{key}`" in index
