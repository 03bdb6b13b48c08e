"""Property test for the git sync planner (`git/sync_plan.py`, docs/reliability.md "Sync across devices"): over
every combination of what a sync can find, it never drops this device's commits, pushes only fast-forwards,
never builds on a rewritten remote, joins unrelated histories only when asked, and says how to fix a refusal."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from aimate_memory.git.sync_plan import Relation, Step, SyncFacts, SyncRefusedError
from aimate_memory.git.sync_plan import plan_sync as plan_git_sync

PROPS = settings(derandomize=True, max_examples=int(os.environ.get("AIMATE_PROPERTY_EXAMPLES", "300")), deadline=None)


_refs = st.sampled_from(["c1", "c2", None])


@st.composite
def git_facts(draw: st.DrawFn) -> SyncFacts:
    local_head, remote_head = draw(_refs), draw(_refs)
    relation = draw(st.sampled_from(list(Relation))) if local_head and remote_head else None
    if relation is Relation.SAME:
        local_head = remote_head
    return SyncFacts(
        vault="/v",
        branch=draw(st.sampled_from(["main", "master"])),
        local_branch=draw(st.sampled_from(["main", "master", None])),
        local_head=local_head,
        remote_head=remote_head,
        last_synced=draw(_refs),
        remote_keeps_last_sync=draw(st.booleans()),
        relation=relation,
        local_is_setup_only=draw(st.booleans()),
        join=draw(st.booleans()),
    )


@PROPS
@given(facts=git_facts())
def test_git_plan_never_drops_commits_nor_forces(facts: SyncFacts) -> None:
    try:
        plan = plan_git_sync(facts)
    except SyncRefusedError as refused:
        assert refused.hint  # a refusal always says how to fix it
        return
    has_own_commits = facts.local_head is not None and not facts.local_is_setup_only
    # ADOPT takes the remote's branch as it is: only when no local commit of this device's own would be lost
    if plan.step is Step.ADOPT and has_own_commits:
        assert facts.relation in (Relation.SAME, Relation.BEHIND)
    # PUSH is a fast-forward of the remote: it has nothing we lack (or nothing at all, never synced before)
    if plan.step is Step.PUSH:
        assert facts.relation is Relation.AHEAD or (facts.remote_head is None and facts.last_synced is None)
    # a remote rewritten since the last sync (force-pushed by someone) is never built on
    if facts.remote_head is not None and facts.local_head is not None and facts.last_synced is not None:
        assert facts.remote_keeps_last_sync
    # a remote branch that vanished after a sync is never recreated silently
    if facts.remote_head is None:
        assert facts.last_synced is None
    # unrelated histories join only when asked
    if plan.allow_unrelated:
        assert facts.join and facts.relation is Relation.UNRELATED
    if facts.relation is Relation.UNRELATED and plan.step is Step.MERGE:
        assert plan.allow_unrelated
    # a local branch with its own commits under another name is never pushed or merged as if it were the branch
    if facts.local_branch != facts.branch and has_own_commits and facts.remote_head is not None:
        assert plan.step is Step.ADOPT
        assert facts.relation in (Relation.SAME, Relation.BEHIND)
