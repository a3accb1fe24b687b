"""The review site: a world read, photographed and rendered as static HTML a reviewer opens from file://.

    collect   the overview's counts and charts, the claims and their evidence, red-team and mutation figures
    corpus    the task corpus (instruction, reward in words, gates, counterfactuals, trajectory)
    history   each commit of the world's repository with its diff and the pass rate before and after
    charts    bar charts as inline SVG;  erd  the spec's entity–relationship diagram as SVG
    screens   every page as each persona sees it;  strips  golden trajectories replayed, a picture per action
    render    the strict Jinja templates of templates/review/;  build  all of it: `build_review`
"""

from factory.review.build import DEFAULT_STRIPS, ReviewSite, build_review, default_out
from factory.review.errors import ReviewError

__all__ = ["DEFAULT_STRIPS", "ReviewError", "ReviewSite", "build_review", "default_out"]
