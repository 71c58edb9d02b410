"""The config's review sections: the sized review (`[review]`) and reviews of people's PRs
(`[pr_reviews]`), both off unless configured (BB-DISP-9..14, BB-REV-1..5, REV-3)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from conveyor.core.config_terms import Strict
from conveyor.core.review_replies import Size

MODEL = Annotated[str, Field(min_length=1)]


class ReviewSettings(Strict):
    """How reviews run.

    `angle_models` gives a model to a lens of Conveyor's own review (`correctness`, `tests`,
    `scope`) or an angle of the sized review, in place of the review role's model (REV-3:
    scope on a cheaper one); `brief_model` is the distiller's and `judge_model` the
    reviewer's who words the judged list. `angles` lists the angles of each size (a size
    left out has the default). `sized_first_review` runs Conveyor's own first review as the
    sized review instead of its three lenses. A diff past `max_diff_lines` lines is cut for
    the sessions, and the review says where.
    """

    angles: dict[Size, tuple[str, ...]] = Field(default_factory=dict)
    angle_models: dict[str, MODEL] = Field(default_factory=dict)
    brief_model: MODEL | None = None
    judge_model: MODEL | None = None
    sized_first_review: bool = False
    max_diff_lines: Annotated[int, Field(ge=100)] = 3000

    @field_validator("angles")
    @classmethod
    def _named(cls, value: dict[Size, tuple[str, ...]]) -> dict[Size, tuple[str, ...]]:
        for size, names in value.items():
            bad = [n for n in names if not n or not all(c.isalnum() or c in "-_" for c in n)]
            if bad:
                msg = f"angles of {size}: expected letters, digits, '-' or '_' in names, got {bad}"
                raise ValueError(msg)
        return value


class PrReviews(Strict):
    """Reviews of PRs people wrote (BB-DISP-9..14).

    `label` is the trigger: a trusted person adds it to a PR, Conveyor removes it (which
    claims the request: one label, one review) and reviews the PR's head. With
    `on_request`, a trusted person's request for the pipeline account's review (the PR's
    requested reviewers) is a trigger too, claimed the same way: Conveyor takes its account
    off the requested reviewers before the review starts; a new request is a new pass. With
    `review_assigned_prs`, every open PR by a trusted author is reviewed without the label,
    once per head, except drafts and Conveyor's own branches (`agent/`). The review is
    posted as a COMMENT; `request_changes` makes one with blocking findings REQUEST_CHANGES.
    A failed review holds the PR back for `backoff_polls` poll intervals.
    """

    label: Annotated[str, Field(min_length=1, max_length=50)] | None = None
    on_request: bool = False
    review_assigned_prs: bool = False
    request_changes: bool = False
    backoff_polls: Annotated[int, Field(ge=0)] = 5

    @property
    def enabled(self) -> bool:
        """Whether anything starts a review of a person's PR."""
        return self.label is not None or self.on_request or self.review_assigned_prs
