"""The snapshot cache file: entries survive reopening, a new account wipes it, answers expire."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.state import IssueState, Stage
from conveyor.forge.types import Issue
from conveyor.orchestrator.shell.snapshot_store import (
    CACHE_FILE,
    CachedIssue,
    CommentHead,
    SnapshotStore,
    load_cached_issue,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _entry(number: int) -> CachedIssue:
    issue = Issue(number, 7, "I_7", "title ✓", "body -->", "open", None, "owner",
                  ("agent:working", "bug"), NOW, NOW, "http://x")  # fmt: skip
    return CachedIssue(
        issue, 'W/"c1"', IssueState(stage=Stage.REVIEW, pr=3), 40, duplicates=(41,),
        comments=(CommentHead(40, "bot", "<!-- conveyor:state v=1 -->", NOW, NOW),),
    )  # fmt: skip


def test_entries_and_the_list_etag_survive_reopening_the_file(tmp_path: Path) -> None:
    """What one store saved, a new store on the same file reads back unchanged."""
    path = tmp_path / CACHE_FILE
    with SnapshotStore(path, "bot") as store:
        store.replace('W/"list"', [_entry(1), _entry(2)])
    with SnapshotStore(path, "bot") as store:
        assert store.list_etag == 'W/"list"'
        assert store.entries() == {1: _entry(1), 2: _entry(2)}
    assert load_cached_issue(path, 2) == _entry(2)
    assert load_cached_issue(path, 3) is None


def test_a_cache_written_for_another_account_is_wiped(tmp_path: Path) -> None:
    """States decoded for one account are not trusted for another (TRUST-10)."""
    path = tmp_path / CACHE_FILE
    with SnapshotStore(path, "bot") as store:
        store.replace('W/"list"', [_entry(1)])
    with SnapshotStore(path, "other-bot") as store:
        assert (store.list_etag, store.entries()) == (None, {})


def test_a_full_read_replaces_every_entry(tmp_path: Path) -> None:
    """An issue missing from the latest read (closed) is gone from the cache."""
    with SnapshotStore(tmp_path / CACHE_FILE, "bot") as store:
        store.replace("a", [_entry(1), _entry(2)])
        store.replace("b", [_entry(2)])
        assert set(store.entries()) == {2}


def test_answers_are_kept_for_ten_minutes(tmp_path: Path) -> None:
    """An answer is served for ten minutes after it was stored, then asked again."""
    with SnapshotStore(tmp_path / CACHE_FILE, "bot") as store:
        store.put_answer("whoami", "bot", NOW)
        assert store.answer("whoami", NOW + timedelta(minutes=9, seconds=59)) == "bot"
        assert store.answer("whoami", NOW + timedelta(minutes=10)) is None
        assert store.answer("collaborator:owner", NOW) is None


def test_a_missing_cache_file_reads_as_no_entry_and_is_not_created(tmp_path: Path) -> None:
    """`conveyor status --issue` on a fresh machine creates nothing."""
    assert load_cached_issue(tmp_path / CACHE_FILE, 1) is None
    assert not (tmp_path / CACHE_FILE).exists()
