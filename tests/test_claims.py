"""The quick slice of `make claims`: numbers the docs quote, recomputed."""

import io

from dcflow.claims import CLAIMS, Claim, check


def test_the_quick_claims_hold():
    quick = [c for c in CLAIMS if c.quick]
    assert quick, "the registry has a quick slice"
    assert check(quick, out=io.StringIO()) == []


def test_a_claim_fails_when_the_page_lost_its_text_or_the_number_moved():
    page = "docs/fidelity.md"
    lost = Claim(page, "no page holds this sentence 12345", 1.0, lambda: 1.0, "none")
    moved = Claim(page, "## The sender's own link", 10.0, lambda: 11.0, "none", tolerance=0.05)
    held = Claim(page, "## The sender's own link", 10.0, lambda: 10.4, "none", tolerance=0.05)
    failures = check([lost, moved, held], out=io.StringIO())
    assert len(failures) == 2
    assert "no longer holds" in failures[0] and "quoted 10" in failures[1]
