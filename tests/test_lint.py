"""The registry's own contract: every claim has a control, a paper with a note, a cited source, an
origin; every paper module maps the paper's numbered results and covers most of the checkable ones."""

from pathlib import Path

import pytest

from theorems import PAPERS, all_claims
from theorems.core import RESULTS, Kind, Origin, coverage
from theorems.papers import PACKAGE_PAPERS

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
    assert isinstance(claim.origin, Origin), f"{claim.id}: say where the statement comes from (origin=)"
    if claim.origin is Origin.PAPER:
        ids = {r.id for r in RESULTS.get(claim.paper, ())}
        unknown = [c for c in claim.covers if c not in ids]
        assert not unknown, f"{claim.id} covers results missing from the {claim.paper} map: {unknown}"
        for result_id in claim.covers:
            assert result_id in claim.source, f"{claim.id}: source must name {result_id!r}"


#: the landed papers the faithfulness issue holds to >= 80 % coverage of their checkable results
COVERAGE_TARGET = 0.8


@pytest.mark.parametrize("paper", PAPERS_WITH_CLAIMS)
def test_results_map_and_coverage(paper):
    assert RESULTS.get(paper), f"theorems/{paper}.py registers no results map (register_results)"
    cov = coverage(paper)
    assert cov["checkable"], f"{paper}: no checkable result in its map"
    share = len(cov["covered"]) / len(cov["checkable"])
    assert share >= COVERAGE_TARGET, (
        f"{paper}: {len(cov['covered'])}/{len(cov['checkable'])} checkable results have a claim; "
        f"uncovered: {cov['uncovered']}")


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
    for key in PACKAGE_PAPERS:
        assert f"`{key}`" in index


@pytest.mark.parametrize("paper", sorted(PACKAGE_PAPERS))
def test_results_map_lists_every_numbered_item_of_the_paper(paper):
    """theorems/numbered.toml records each paper's main-text numbered results, tables and figures
    (read off the full text independently of the map); the map must list every one of them."""
    from theorems.core import numbered_items, pending_maps, unmapped_items

    if numbered_items(paper) is None:
        pytest.skip(f"{paper}: no numbered list recorded in theorems/numbered.toml yet")
    missing = unmapped_items(paper)
    if paper in pending_maps():
        assert missing, f"{paper}: its map now lists every numbered item: remove it from `pending`"
        pytest.xfail(f"{paper}: its map does not list {missing} yet (pending in numbered.toml)")
    assert not missing, f"{paper}: the results map does not list {missing}"
