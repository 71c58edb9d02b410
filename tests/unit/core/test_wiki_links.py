"""wiki-check's rules on page texts (CHK-9): links resolve, new pages are linked."""

from __future__ import annotations

from conveyor.core.wiki_links import links_of, page_key, wiki_findings


def test_wiki_links_markdown_links_and_references_are_read_but_not_code_or_urls() -> None:
    """`[[Page]]`, `[[Text|Page]]`, `[t](Page)` and `[r]: Page` count; code and URLs do not."""
    text = (
        "See [[Stock Levels]] and [[the report|Low-Stock]].\n"
        "Also [prices](Unit-Prices#cents) and ![logo](logo.png).\n"
        "[ref]: ./Valuation\n"
        "External: [GitHub](https://github.com) [top](#top) [code](../blob/main/x.py)\n"
        "`[[Not A Link]]`\n"
        "```\n[[Also Not]]\n```\n"
    )
    assert links_of(text) == ("Stock Levels", "Low-Stock", "Unit-Prices", "Valuation")


def test_page_names_match_files_with_hyphens_for_spaces_in_any_case() -> None:
    """`[[Stock levels]]` names `Stock-Levels.md`, wherever the file is."""
    assert page_key("Stock levels") == page_key("guides/Stock-Levels.md") == "stock-levels"


def test_a_link_to_a_missing_page_in_a_changed_page_is_a_finding() -> None:
    """Each missing target is named once, with the page that links to it."""
    texts = {"Home.md": "[[Stock]] [[Nowhere]] [[Nowhere]]", "Stock.md": "Levels."}
    found = wiki_findings(texts, list(texts), changed=["Home.md"], added=[])
    assert found == ("Home.md: links to 'Nowhere', which is no page or file of the wiki",)


def test_links_in_pages_the_issue_did_not_change_are_not_checked() -> None:
    """Only the issue's changed pages are checked for links (CHK-9)."""
    texts = {"Old.md": "[[Gone]]", "Home.md": "Welcome."}
    assert wiki_findings(texts, list(texts), changed=["Home.md"], added=[]) == ()


def test_a_new_page_must_be_linked_from_the_sidebar_or_another_page() -> None:
    """A page only linking to itself is unlinked; a sidebar link or another page's is enough."""
    texts = {"Home.md": "Welcome.", "New.md": "[[New]] itself.", "_Sidebar.md": "[[Home]]"}
    found = wiki_findings(texts, list(texts), changed=["New.md"], added=["New.md"])
    assert found == ("New.md: a new page that neither _Sidebar nor another page links to",)
    texts["_Sidebar.md"] = "[[Home]] [[New]]"
    assert wiki_findings(texts, list(texts), changed=["New.md"], added=["New.md"]) == ()


def test_a_link_to_a_file_needs_the_file_and_special_pages_need_no_link() -> None:
    """`[[diagram.png]]` needs that file; a new Home or _Footer is never unlinked."""
    texts = {"Home.md": "[[diagram.png]]", "_Footer.md": "Footer."}
    paths = [*texts, "images/diagram.png"]
    assert wiki_findings(texts, paths, changed=list(texts), added=list(texts)) == ()
    found = wiki_findings(texts, list(texts), changed=["Home.md"], added=[])
    assert found == ("Home.md: links to 'diagram.png', which is no page or file of the wiki",)
