"""The page engine's agreement with Chrome's tree on generated documents
(:mod:`benchmarks.cases.outline_differential`), as a benchmark case: a fresh hypothesis
seed each run, the share of nodes with Chrome's role and name."""

from __future__ import annotations

from benchmarks.cases.base import CORE_API, Case, Ctx, Metric, Target


async def _cdpkit_agreement(ctx: Ctx) -> dict[str, float]:
    from benchmarks.cases.clients import cdpkit_page
    from benchmarks.cases.outline_differential import EXAMPLES, agreement

    async with cdpkit_page(ctx) as page:
        total = await agreement(page, 10 if ctx.quick else EXAMPLES, seed=None)
    return {"agree": total.share, "names": 100.0 * total.names / max(total.listed, 1),
            "roles": 100.0 * total.roles / max(total.listed, 1), "nodes": float(total.nodes)}


OUTLINE_AGREEMENT = Case(
    name="outline_agreement",
    metrics=(
        Metric("agree", "page engine vs Chrome's tree on generated documents: nodes with "
               "the same role and name (%)", Target(abs_min=99.5)),
        Metric("roles", "of the nodes both list, the same role (%)"),
        Metric("names", "of the nodes both list, the same name (%)"),
        Metric("nodes", "nodes compared"),
    ),
    sides={"cdpkit": _cdpkit_agreement},
    needs=(*CORE_API, "tools.snapshot"),
    timeout=900.0,
    notes=("outline_agreement: hypothesis-generated documents (benchmarks/cases/"
           "outline_differential.py), each batch loaded as one page; a node agrees when both "
           "engines list it with the same role and name; nodes listed by only one count "
           "against. Each run draws new documents (hypothesis' random seed).",),
)
CASES = (OUTLINE_AGREEMENT,)


