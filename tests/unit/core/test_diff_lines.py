"""A diff as data: lines its hunks show on each side, added lines, cuts, what a push touched."""

from __future__ import annotations

from conveyor.core.diff_lines import (
    added_lines,
    changed_lines,
    cut_diff,
    parse_diff,
    shown_span,
    touched,
)

DIFF = """\
diff --git a/app.py b/app.py
index 1..2 100644
--- a/app.py
+++ b/app.py
@@ -1,3 +1,4 @@
 a = 1
-b = 2
+b = 3
+c = 4
 d = 5
@@ -20,2 +21,3 @@ def f():
 x = 1
+y = 2
 z = 3
diff --git a/old.py b/new.py
similarity index 90%
rename from old.py
rename to new.py
--- a/old.py
+++ b/new.py
@@ -1 +1 @@
-print(1)
+print(2)
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-one
-two
"""


def test_each_file_knows_the_lines_its_hunks_show_and_what_it_changes() -> None:
    """Two hunks of app.py; a rename keeps both paths; a deletion has no new side."""
    app, renamed, gone = parse_diff(DIFF)
    assert (app.path, app.right, app.left, app.added, app.removed) == (
        "app.py", ((1, 4), (21, 23)), ((1, 3), (20, 21)), 3, 1,
    )  # fmt: skip
    assert (renamed.path, renamed.old_path) == ("new.py", "old.py")
    assert (gone.path, gone.right, gone.left) == ("gone.py", (), ((1, 2),))
    assert changed_lines(parse_diff(DIFF)) == 8
    assert added_lines(app) == ((2, "b = 3"), (3, "c = 4"), (22, "y = 2"))


def test_a_range_is_shown_whole_in_one_hunk_or_cut_to_the_hunk_it_ends_in() -> None:
    """Lines 2-3 sit in one hunk; 3-22 end in the second (only 22 then); 10 is in none."""
    files = parse_diff(DIFF)
    assert shown_span(files, "app.py", 2, 3) == (2, 3)
    assert shown_span(files, "app.py", 3, 22) == (21, 22)
    assert shown_span(files, "app.py", 10, 10) is None
    assert shown_span(files, "other.py", 1, 1) is None


def test_a_cut_diff_says_how_much_it_kept_and_names_every_file_left_out() -> None:
    """Cut at 12 lines: app.py in part, the rest named; no cut, no note."""
    files = parse_diff(DIFF)
    cut = cut_diff(files, 12)
    assert cut.cut
    assert cut.left_out == ("new.py", "gone.py")
    assert cut.text.splitlines()[-1] == cut.note
    assert "Files not shown at all: new.py, gone.py" in (cut.note or "")
    whole = cut_diff(files, 1000)
    assert (whole.cut, whole.note, whole.left_out) == (False, None, ())


def test_what_a_push_touched_is_read_on_the_old_side() -> None:
    """app.py's replaced lines; a renamed-away and a deleted file entirely."""
    found = touched(parse_diff(DIFF))
    assert found["app.py"] == ((1, 3), (20, 21))
    assert found["old.py"] == ((1, 10**9),)
    assert found["gone.py"] == ((1, 2),)


def test_a_path_git_quotes_is_read_unquoted() -> None:
    """A name with a byte outside ASCII (or a tab, a quote) comes quoted and escaped: it is
    still the file's path, and its lines are still its own."""
    diff = (
        'diff --git "a/t\\303\\253st.py" "b/t\\303\\253st.py"\n'
        'new file mode 100644\n--- /dev/null\n+++ "b/t\\303\\253st.py"\n'
        "@@ -0,0 +1 @@\n+x = 1  # noqa\n"
        "diff --git a/a b.py b/a b.py\n--- a/a b.py\n+++ b/a b.py\n@@ -1 +1 @@\n-y\n+z\n"
    )
    first, second = parse_diff(diff)
    assert (first.path, first.old_path) == ("t\u00ebst.py", None)
    assert added_lines(first) == ((1, "x = 1  # noqa"),)
    assert (second.path, second.old_path) == ("a b.py", "a b.py")
    assert added_lines(second) == ((1, "z"),)
