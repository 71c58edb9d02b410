"""An issue's timeline on the forge's pages: the SVG `conveyor.core.timeline` draws, every
label escaped, of the bars the pipeline's reader hands over (`EmulatorState.pipeline`).

The forge reads none of the pipeline's files itself: the reader is built from the modules
that write them (`job.timeline_read`, by `orchestrator/shell/pipeline_files.py`) and handed
in by whoever starts the forge.
"""

from __future__ import annotations

from conveyor.core.pipeline_view import PipelineReader
from conveyor.core.timeline import Timeline, render_svg

SHOWN_ON_PIPELINE = 5  # the newest issues a repository's section draws


def timeline_html(timeline: Timeline, issue: int) -> str:
    """The issue's timeline as a section of a page, or nothing when no job ran."""
    svg = render_svg(timeline)
    if not svg:
        return ""
    return f'<section class="timeline"><h3>Timeline of #{issue}</h3>{svg}</section>'


def issue_timeline(reader: PipelineReader | None, slug: str, issue: int) -> str:
    """The issue page's timeline, when the forge was handed a pipeline's reader."""
    if reader is None:
        return ""
    return timeline_html(reader.timeline(slug, issue), issue)


def pipeline_timelines(reader: PipelineReader, slug: str, recent: tuple[int, ...]) -> str:
    """The newest issues' timelines for a repository's section of `/pipeline`."""
    shown = recent[:SHOWN_ON_PIPELINE]
    return "".join(timeline_html(reader.timeline(slug, n), n) for n in shown)
