"""`Capture` (`remember`): classify a sentence, route it by the agent's confidence, and write it — or update
the memory it restates instead of duplicating it (docs/design.md, "Capture"). The decisions are the pure
functions of `aimate_memory.capture`; this module gathers their inputs and does the writing."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from aimate_memory.capture import CaptureResult, Classification, classify, decide, route, title_of
from aimate_memory.capture.heard import heard
from aimate_memory.capture.ledger import HeardLedger
from aimate_memory.capture.model import PLACES
from aimate_memory.capture.result import CaptureAction
from aimate_memory.capture.routing import Outcome, Route
from aimate_memory.capture.supersede import Candidate, SupersedeDecision, normalize
from aimate_memory.capture.translation import says_again
from aimate_memory.errors import AimateError, InvalidInputError
from aimate_memory.locks import file_lock
from aimate_memory.system.conflicts import Conflicts, takes_sides
from aimate_memory.system.memories import Memories
from aimate_memory.system.perf import PerfLog, Stopwatch
from aimate_memory.system.reading import SentenceReader
from aimate_memory.system.records import CONFLICT_FIELD, ConflictRecord, conflicts_with
from aimate_memory.system.search import Retrieval
from aimate_memory.system.store import Store
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.changes import ChangeSet
from aimate_memory.vault.filters import MemoryFilter, parse_scope
from aimate_memory.vault.layout import Layer, Scope, folder_for
from aimate_memory.vault.model import Memory
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.store import Vault
from aimate_memory.vault.validate import check_writable_text, thread_name

log = logging.getLogger(__name__)
SUPERSEDE_CANDIDATES = 5  # the most similar active memories of the same layer, scope and category
# A cosine at which a capture is the same statement said again, not a new side of it. Measured on real
# restatements (scripts/research/restatement_threshold.py on the replay's labelled "restated" turns: 9 of 69
# at .85, 15 at .70, no pair of different statements of a project over .63) and the supersede pairs (highest
# "different" .68, the supersede bar .70). Across languages a restatement sits lower ("Do not reset the
# seeds" / "不要重置随机种子" .73): the supersede bar, not .85 (docs/design.md, "Said again counts").
RESTATEMENT = 0.70
# A cosine at which a capture updating a memory of its own layer and category is taken as that statement
# reworded, never a conflict with it ("I prefer pytest to unittest" after "I prefer pytest over unittest"). Kept
# at the translation's .85: between .70 and .85 a change of mind still reaches the person as a conflict.
SAME_STATEMENT = 0.85
# What a proposal may restate: curated memories, never a session transcript (which holds the sentence itself).
_MEMORIES = MemoryFilter(layers=(Layer.CORE, Layer.LONG_TERM, Layer.SHORT_TERM), statuses=("active",))
_SAID = MemoryFilter(layers=_MEMORIES.layers, statuses=("active", "pending"))  # what a proposal may say again
# What `warm` classifies: a decision in each language, as a first `remember` would.
WARM_SENTENCES = ("We decided to keep the cache in Redis", "我们决定缓存继续用 Redis")
SAID_FIELD = "said"  # frontmatter of a waiting proposal: how many times the person said it (2 and up)
REJECTED_FILE = "rejected_captures.json"  # in the global state folder: never committed, never synced
MAX_REJECTED = 5000  # hashes kept, newest last
KEPT_BODIES = 4096  # waiting captures' normalized bodies a long-lived process keeps (`Capture._normalized_body`)


class RejectedCaptures:
    """What the person rejected in review, as hashes of the normalized text (no text kept): a session never
    proposes it again (docs/design.md, "Capture from a conversation")."""

    def __init__(self, state_dir: Path) -> None:
        self._path = state_dir / REJECTED_FILE

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()[:32]

    def hashes(self) -> set[str]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return set()  # a damaged file costs a proposal asked again, never a failed session end
        return {str(item) for item in data} if isinstance(data, list) else set()

    def add(self, text: str) -> None:
        with file_lock(self._path.with_name(REJECTED_FILE + ".lock")):
            known = [item for item in self._ordered() if item != self.key(text)]
            self._path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self._path, json.dumps([*known, self.key(text)][-MAX_REJECTED:]) + "\n")

    def _ordered(self) -> list[str]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return []
        return [str(item) for item in data] if isinstance(data, list) else []


class Capture:
    """Capture. Offers `remember` (one sentence, classified, routed by confidence and consent, written or
    superseding) and `propose_from_session` (what an ended session leaves for review)."""

    def __init__(
        self,
        store: Store,
        perf_log: PerfLog,
        retrieval: Retrieval,
        memories: Memories,
        reader: SentenceReader,
        conflicts: Conflicts,
    ) -> None:
        self._store = store
        self._perf_log = perf_log
        self._retrieval = retrieval
        self._memories = memories
        self._reader = reader
        self._conflicts = conflicts
        self._bodies: dict[Path, tuple[tuple[int, int, int], str]] = {}  # `_normalized_body`, by file

    def remember(
        self,
        text: str,
        *,
        confidence: float | None = None,
        scope: str | None = None,
        source: str = "cli",
        thread: str | None = None,
        status: str | None = None,
        kind: str | None = None,
        force: bool = False,
        origin: dict[str, object] | None = None,
        keep_both: bool = False,
        replaces: str | None = None,
    ) -> CaptureResult:
        """Capture one sentence where it belongs (capture/classify.py), or drop it when it is not worth
        keeping (small talk, thanks, a question) unless `force`. `kind` (rule, preference, decision,
        knowledge, project, task, note) sets layer and category; scope is still decided unless given.
        No `confidence` from a person (`source` cli) means written active; an agent's confidence routes it to
        active, pending (left uncommitted for `aimate mem review`) or dropped, and whatever does not come from
        a person lands in core only pending (capture/routing.py). A secret is refused before anything is
        written; a restatement of an active memory of the same layer, scope and category supersedes it (both
        files in one commit); the same words again write nothing (`exists`). `thread`: the conversation it
        was said in (its neighbours there are context); `origin`: fields recording where it came from
        (a session's id and turn).
        `status`: the person's own consent for a hook's capture (`hooks.capture_status`; docs/agents.md,
        "Consent"), which the routing does not override: "pending" waits for their review, "active" (they
        chose to keep their `remember:` at once) is written active.
        A core memory or decision that may contradict an active one (docs/design.md, "Conflicts") is written
        pending with `conflicts_with` (action `conflict`), whoever said it: the person chooses in review.
        `keep_both`: they have chosen already — written as routed, beside the others. `replaces`: the id of
        the memory it replaces — written as routed, superseding that one (pending: on accept)."""
        with self._conflicts.one_walk():  # its checks write nothing between them: the folders walked once
            return self._remember(
                text, confidence, scope, source, thread, status, kind, force, origin, keep_both, replaces
            )

    def _remember(
        self,
        text: str,
        confidence: float | None,
        scope: str | None,
        source: str,
        thread: str | None,
        status: str | None,
        kind: str | None,
        force: bool,
        origin: dict[str, object] | None,
        keep_both: bool,
        replaces: str | None,
    ) -> CaptureResult:
        watch = Stopwatch()
        if not text or not text.strip():
            raise InvalidInputError("nothing to remember: the text is empty", "pass the sentence to remember")
        if kind is not None and kind not in PLACES:
            raise InvalidInputError(f"unknown kind {kind!r}", f"use one of: {', '.join(PLACES)}")
        self._check_length(text)
        thread = thread_name(thread) if thread is not None else None
        # Checked before classifying: a 1 MB text or a secret is refused before any model reads it.
        check_writable_text({"title": title_of(text.strip()), "body": text.strip()})
        self._memories.guard_secrets(text)
        found = self._classify(text, scope, kind)
        watch.lap("classify")
        if found.drop and not force:
            self._perf_log.log("capture", watch, "dropped")
            return CaptureResult("dropped", None, None, f"{found.reason}; nothing written (--force keeps it)")
        if found.drop:
            found = replace(found, reason=found.forced_reason, drop=False)
        routed = route(confidence, *self._capture_thresholds(), layer=found.layer, source=source)
        if status in ("pending", "active") and routed.status is not None:
            outcome: Outcome = "pending" if status == "pending" else "written"
            routed = Route(
                outcome, status, f"{routed.reason}; {status}, as the person configured (hooks.capture_status)"
            )
        if routed.status is None:
            self._perf_log.log("capture", watch, found.layer.value)
            return CaptureResult("dropped", None, None, f"{routed.reason}; nothing written ({found.reason})")
        vault = self._store.vault_for(found.scope)
        replaced = self._replaced(replaces, vault) if replaces is not None else None
        waiting = None if keep_both or replaced is not None else self._waiting_copy(vault, found)
        if waiting is not None:
            # Said again while it waits for review: one proposal, said twice — never a second copy, never a
            # conflict with itself (docs/design.md, "Said again counts").
            self._perf_log.log("capture", watch, found.layer.value)
            reason = f"same words as {waiting.id[:8]}, waiting for your review; {found.reason}"
            return CaptureResult("exists", self._strengthen(waiting.id), None, reason)
        decision = decide(found.body, self._similar(vault, found), *self._supersede_thresholds())
        watch.lap("similar")
        if decision.action == "new" and replaced is None and not keep_both and takes_sides(found.layer, found.category):
            decision = self._said_before(found.body, vault) or decision
            watch.lap("restated")
        reason = f"{found.reason}; {routed.reason}"
        if decision.action == "exists":
            self._perf_log.log("capture", watch, found.layer.value)
            return CaptureResult(
                "exists", self._strengthen(str(decision.target_id)), None, f"{decision.reason}; {reason}"
            )
        conflicts: list[ConflictRecord] = []
        if replaced is not None:
            decision = SupersedeDecision("supersede", replaced.id, f"replaces {replaced.id[:8]}, as asked")
        elif not keep_both and takes_sides(found.layer, found.category):
            conflicts = self._conflicts.check(found.body, vault, exclude=_restated(decision))
            watch.lap("conflicts")
        status = routed.status
        if conflicts:
            # Never beside the memory it contradicts, never over it unasked: pending, for the person to choose.
            status = "pending"
            origin = {**(origin or {}), CONFLICT_FIELD: [conflict.id for conflict in conflicts]}
            shown = "; ".join(f"{conflict.id[:8]} ({conflict.reason})" for conflict in conflicts)
            reason = f"may contradict {shown}; pending until you choose; {reason}"
            if decision.action == "supersede":
                decision = SupersedeDecision("new", None, "a conflict is not superseded unasked")
        elif replaced is not None and status == "pending":
            origin = {**(origin or {}), CONFLICT_FIELD: [replaced.id]}  # accepting it replaces that one
        elif decision.action == "supersede" and status == "pending":
            # An update waiting for review retires what it updates only when the person accepts it (review
            # shows the memory beside it): the accept is the consent, never the similarity alone.
            origin = {**(origin or {}), CONFLICT_FIELD: [str(decision.target_id)]}
        twin = self._pending_twin(vault, found) if keep_both or replaced is not None else None
        result = self._write_capture(
            vault, found, status, confidence, source, decision, reason, thread, origin, replacing=twin, watch=watch
        )
        self._perf_log.log("capture", watch, found.layer.value)
        if conflicts:
            return as_conflict(result, conflicts)
        return result

    def warm(self) -> None:
        """Load now what a first `remember` would wait for (a daemon does, once its models are loaded): capture's
        rule tables and the kind model (a sentence of each language classified), the conflict table and each
        vault's pool of core memories and decisions (a check). Nothing is written and nothing decided is kept
        but what a later request would compute the same way (docs/design.md §12, "What a warm request reads
        twice")."""
        for vault in self._store.vaults:
            self._conflicts.check(WARM_SENTENCES[0], vault)
        for sentence in WARM_SENTENCES:
            self._classify(sentence, None)

    def _check_length(self, text: str) -> None:
        """A rule, a preference or a decision is a sentence or a few: a longer text is a note or a document,
        and capture files nothing that long as one line (docs/design.md, "Capture")."""
        limit = int(self._store.config.get("capture.max_chars"))
        length = len(text.strip())
        if length > limit:
            raise InvalidInputError(
                f"too long to remember as one memory: {length:,} characters, over capture.max_chars ({limit:,}); "
                "nothing was written",
                "say it in a sentence, or keep a long note as a file: `aimate mem add TITLE --file PATH`",
            )

    def _pending_twin(self, vault: Vault, found: Classification) -> Memory | None:
        """The conflict this capture settles: a pending memory of the same words, same place, that was held
        back for what it may contradict (the person ran `remember` again with `--keep-both` or `--replace`)."""
        twin = next((memory for memory in self._pending_copies(vault, found) if conflicts_with(memory)), None)
        return self._memories.get(twin.id) if twin is not None else None

    def _waiting_copy(self, vault: Vault, found: Classification) -> Memory | None:
        """A capture of the same words, same place, already waiting for review (a conflict or an update held
        for the person's word), or None."""
        return next(iter(self._pending_copies(vault, found)), None)

    def _pending_copies(self, vault: Vault, found: Classification) -> list[Memory]:
        where = MemoryFilter(
            layers=(found.layer,), scopes=(vault.scope,), categories=(found.category,), statuses=("pending",)
        )
        listed = self._memories.list(where)
        if not listed:
            return []
        wanted = normalize(found.body)
        same = [item for item in listed if self._normalized_body(vault, item) == wanted]
        return [self._memories.get(item.id, read_only=True) for item in same]

    def _normalized_body(self, vault: Vault, item: Memory) -> str:
        """`normalize` of a listed memory's body, read from its file only when the file changed since this
        process last read it (its size, mtime and inode): every `remember` compares its sentence with each
        capture waiting in its place, and reading and normalizing each of them again was ~10 % of a warm
        `remember` with a dozen waiting (docs/design.md §12, "What a warm remember reads once")."""
        path = vault.abs_path(item.rel_path)
        try:
            status = path.stat()
        except OSError:
            status = None
        stamp = (status.st_size, status.st_mtime_ns, status.st_ino) if status is not None else None
        kept = self._bodies.get(path)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return kept[1]
        body = normalize(self._memories.get(item.id, read_only=True).body)
        if stamp is not None:
            if len(self._bodies) >= KEPT_BODIES:
                self._bodies.clear()
            self._bodies[path] = (stamp, body)
        return body

    def _replaced(self, ref: str, vault: Vault) -> Memory:
        """The active memory `--replace` names, in the vault the capture goes to."""
        memory = self._memories.get(ref)
        if memory.scope is not vault.scope or memory.status != "active":
            raise InvalidInputError(
                f"{memory.id[:8]} is not an active memory of the {vault.scope.value} vault",
                "`--replace` names the active memory this one replaces (its id from the conflict)",
            )
        return memory

    def _classify(self, text: str, scope: str | None, kind: str | None = None) -> Classification:
        project = (
            self._store.project_vault
            if self._store.project_vault is not None and self._store.project_vault.exists
            else None
        )
        project_root = self._store.roots.project

        def path_exists(word: str) -> bool:
            # Only paths inside the project count; "../x" or "/etc/x" name nothing of it.
            if project_root is None or word.startswith(("/", "~")) or ".." in Path(word).parts:
                return False
            return (project_root / word).exists()

        return classify(
            text,
            has_project=project is not None,
            path_exists=path_exists if project is not None else None,
            scope_override=parse_scope(scope) if scope else None,
            vector=self._reader.vector(text) if kind is None else None,
            kind=kind,
        )

    def _capture_thresholds(self) -> tuple[float, float]:
        return float(self._store.config.get("capture.write_threshold")), float(
            self._store.config.get("capture.pending_threshold")
        )

    def _supersede_thresholds(self) -> tuple[float, float]:
        return (
            float(self._store.config.get("capture.supersede_threshold")),
            float(self._store.config.get("capture.keyword_supersede_threshold")),
        )

    def _similar(self, vault: Vault, found: Classification) -> list[Candidate]:
        """Active memories of the same layer, scope and category most like the capture, with their cosine
        to it when the embedder reads both texts (None: keyword overlap decides)."""
        index = self._store.index_for(vault)
        # Only the capture's folder is walked: a fresh capture of a moment ago must be seen, and a walk of
        # one folder costs a few stats where a whole-vault sync of 10k files would cost a scan.
        index.refresh(paths=[folder_for(found.layer, found.category).as_posix()])
        where = MemoryFilter(
            layers=(found.layer,), scopes=(vault.scope,), categories=(found.category,), statuses=("active",)
        )
        hits = self._retrieval.search(found.body, top_k=SUPERSEDE_CANDIDATES, where=where, snippets=False).results
        # Read-only: only the bodies are read, and the tool's simple frontmatter then skips ruamel.
        bodies = [(hit.memory.id, self._memories.get(hit.memory.id, read_only=True).body.strip()) for hit in hits]
        cosines = self._cosines(found.body, [body for _, body in bodies])
        return [Candidate(memory_id, body, cosine) for (memory_id, body), cosine in zip(bodies, cosines, strict=True)]

    def _cosines(self, text: str, others: list[str]) -> list[float | None]:
        if not others or not self._store.embedder.enabled:
            return [None] * len(others)
        from aimate_memory.embedding.base import understands
        from aimate_memory.text.scripts import script_of

        embedder = self._store.embedder.get()
        if embedder is None or not understands(embedder.languages, script_of(text)):
            return [None] * len(others)
        readable = [understands(embedder.languages, script_of(other)) for other in others]
        vectors = self._store.embedder.embed_documents(others)  # unit rows, each body embedded once per process
        # The capture's own vector is the supersede search's, kept (`embed_query` is `embed([text])[0]`): not
        # embedded again as a document while the person waits. A daemon embeds it as one after its answer,
        # for when this memory is the next capture's candidate (`_leave_for_after`).
        own = self._store.embedder.embed_query(text)
        return [float(own @ row) if ok else None for row, ok in zip(vectors, readable, strict=True)]

    def _write_capture(
        self,
        vault: Vault,
        found: Classification,
        status: str,
        confidence: float | None,
        source: str,
        decision: SupersedeDecision,
        reason: str,
        thread: str | None = None,
        origin: dict[str, object] | None = None,
        replacing: Memory | None = None,
        watch: Stopwatch | None = None,
    ) -> CaptureResult:
        """`replacing`: an earlier pending copy of the same words (a conflict the person now settles with
        `--keep-both` or `--replace`): removed as this one is written, in its commit. `watch`: laps "write"
        (the files, fsynced), "commit" (or its hand-off to after the answer) and "index"."""
        watch = watch or Stopwatch()
        # A pending capture waits for review: it supersedes nothing until a person accepts it.
        old = (  # read-only: `supersede` reads the file again to write it (no ruamel parse for an id and a path)
            self._memories.get(str(decision.target_id), read_only=True)
            if decision.action == "supersede" and status == "active"
            else None
        )
        extra: dict[str, object] = {"capture_rule": found.kind}
        if confidence is not None:
            extra["confidence"] = round(float(confidence), 4)
        if old is not None:
            extra["supersedes"] = old.id
        if thread is not None:
            extra["thread"] = thread
        extra.update(origin or {})
        ttl = self._store.config.get("short_term.default_ttl_days") if found.layer is Layer.SHORT_TERM else None
        settled = [vault.delete(replacing)] if replacing is not None else []  # first: its file name is free again
        memory, change = vault.create(
            title=found.title,
            body=found.body,
            layer=found.layer,
            category=found.category,
            ttl_days=ttl,
            status=status,
            source=source,
            extra=extra,
        )
        changes = [change, *settled]
        if old is not None:
            changes.append(self._memories.supersede(old, memory.id))
            reason = f"{decision.reason}; {reason}"
        watch.lap("write")
        if status == "active":
            # Pending captures stay uncommitted: `aimate mem review` lists them (accept commits, reject removes).
            where = f"{found.layer.value}/{found.category}"
            # Deferrable: the files are durable and indexed before the answer; the daemon commits right after it.
            changeset = ChangeSet(f'memory: remember "{memory.title}" ({where})', changes)
            self._store.record(vault, changeset, deferrable=True)
        watch.lap("commit")
        # Searchable, by keywords and vectors, when the command returns: not left to the next command's sync.
        self._store.index_written(vault, [change.path for change in changes])
        watch.lap("index")
        self._leave_for_after(vault, memory)
        action: CaptureAction = "written" if status == "active" else "pending"
        return CaptureResult(action, memory, old.id if old is not None else None, reason)

    def _leave_for_after(self, vault: Vault, memory: Memory) -> None:
        """In a process that keeps serving (the daemon: `Store.after_answer`), what the next request would embed
        of the memory just written — its body as a document (when it is that capture's candidate) and its
        cross-script forms (when a question in the other script comes near it) — embedded after this answer,
        not while the next caller waits (docs/design.md §12, "What a remember leaves for after its answer")."""
        if self._store.after_answer is not None:
            body = memory.body.strip()
            self._store.after_answer(lambda: self._retrieval.warm_written(vault, [memory.id], [body]))

    def propose_from_session(
        self, session_id: str, turns: Sequence[tuple[str, str]], key: str | None = None
    ) -> list[CaptureResult]:
        """What a finished session leaves for review (capture/distill.py): the person's own sentences that say
        they hold beyond now, filed as a rule, preference, decision, knowledge or task, each written pending
        with the session and turn it came from — in the project's vault unless about the person (their
        language, shell, machine), never one the person rejected before, never a second copy of one already
        waiting. A statement heard in other sessions too (`capture/ledger.py`, keyed by the client's session
        `key`, as the prompt hook notes it) is proposed first. A sentence that cannot be kept (a secret, too
        long) is skipped: ending a session never fails because of what was said in it."""
        limit = int(self._store.config.get("capture.distill_max"))
        if limit <= 0:
            return []
        # Imported here: its tables (and the choices') are a session end's, not a `remember`'s (issue 38, cold).
        from aimate_memory.capture.distill import ranked, session_limit, user_turn_count

        rejected = self.rejections.hashes() | {RejectedCaptures.key(text) for text in self._waiting()}
        ledger = HeardLedger(Roots.state_dir(self._store.roots.home))
        tag = key or session_id
        ledger.note(
            tag,
            (
                statement.key
                for number, (role, text) in enumerate(turns, 1)
                if role == "user"
                for statement in heard(number, text)
            ),
        )
        elsewhere = ledger.sessions_besides(tag)
        proposals = ranked(
            turns,
            lambda sentence: self._classify(sentence, None),
            float(self._store.config.get("capture.distill_confidence")),
            rejected=lambda sentence: RejectedCaptures.key(sentence) in rejected,
            said_before=lambda statement: elsewhere.get(HeardLedger.hashed(statement), 0),
        )
        has_project = self._store.project_vault is not None and self._store.project_vault.exists
        # The session's cap counts what is proposed: a statement the vault already holds is a use of it, not a
        # proposal, and leaves its place to the next (docs/design.md, "Capture from a conversation").
        room = session_limit(limit, user_turn_count(turns))
        results: list[tuple[int, CaptureResult]] = []
        for proposal in proposals:
            if len(results) >= room:
                break
            scope = (Scope.GLOBAL if proposal.personal else Scope.PROJECT).value if has_project else None
            known = self._known_as(proposal.text)
            if known is not None:  # said again: evidence the memory is needed, not a second copy to review
                log.info("session %s turn %d restates %s", session_id[:8], proposal.turn, known[:8])
                self._strengthen(known)
                continue
            try:
                result = self.remember(
                    proposal.text,
                    source="session",
                    kind=proposal.kind,
                    scope=scope,
                    origin={"session": session_id, "turn": proposal.turn, "confidence": round(proposal.confidence, 4)},
                )
            except AimateError as error:
                log.info("session %s turn %d not proposed: %s", session_id[:8], proposal.turn, error)
                continue
            results.append((proposal.turn, result))
        return [result for _, result in sorted(results, key=lambda pair: pair[0])]

    def _said_before(self, text: str, vault: Vault) -> SupersedeDecision | None:
        """`exists` when an active core memory or decision of `vault` in another category says `text` again in
        other words or another language (a cosine at or over `RESTATEMENT`, and nothing it contradicts): "我更喜欢
        用 pytest，而不是 unittest" after the preference "I prefer pytest over unittest" is that memory, not a
        second core rule (docs/design.md, "Capture from a conversation"). Read from the conflict check's pool
        (its stored vectors): no search of its own."""
        known = self._conflicts.restated(text, vault, RESTATEMENT)
        if known is None:
            return None
        return SupersedeDecision("exists", known, f"says again what {known[:8]} says (a use of it, not a copy)")

    def _strengthen(self, memory_id: str) -> Memory:
        """A memory said again: an active one gets a use (uses live in the state folder's journal, never in
        the file; promotion counts them), a waiting proposal `said: N` in its uncommitted file, which review
        shows — either way the person's repetition counts, and nothing is copied."""
        memory = self._memories.get(memory_id)
        if memory.status == "pending":
            said = memory.doc.get(SAID_FIELD) if memory.doc is not None else None
            count = int(said) + 1 if isinstance(said, int) else 2
            return self._store.vault_for(memory.scope).update(memory, {SAID_FIELD: count}, touch=False)
        return self._memories.read(memory_id)

    def _known_as(self, text: str) -> str | None:
        """The memory (any layer, either vault; active, or a proposal waiting for review) this sentence says
        again — a cosine at or over the supersede bar, or the same said in the other language
        (capture/translation.py), and nothing it contradicts — or None. A change of mind
        ("switch to Vuex" after "use Pinia") is close too, but it contradicts: it is proposed, as a conflict
        for the person to settle."""
        hits = self._retrieval.search(text, top_k=SUPERSEDE_CANDIDATES, where=_SAID, snippets=False)
        bodies = [(hit.memory.id, self._memories.get(hit.memory.id).body.strip()) for hit in hits.results]
        vectors = self._reader.vectors([text, *(body for _, body in bodies)]) if bodies else None
        if vectors is None:
            return None
        bar = self._supersede_thresholds()[0]
        close = [
            memory_id
            for (memory_id, body), row in zip(bodies, vectors[1:], strict=True)
            if says_again(text, body, float(vectors[0] @ row), bar)
        ]
        if not close:
            return None
        contradicted = {record.id for vault in self._store.vaults for record in self._conflicts.check(text, vault)}
        return next((memory_id for memory_id in close if memory_id not in contradicted), None)

    @property
    def rejections(self) -> RejectedCaptures:
        return RejectedCaptures(Roots.state_dir(self._store.roots.home))

    def _waiting(self) -> list[str]:
        """The bodies of the captures already waiting for review: a restatement is never a second copy."""
        pending = self._memories.list(MemoryFilter(statuses=("pending",)))
        return [self._memories.get(listed.id).body for listed in pending]


def _restated(decision: SupersedeDecision) -> list[str]:
    """The memory a capture says again in other words (a cosine at or over `SAME_STATEMENT`): never a conflict
    with it — "I prefer pytest to unittest" after "I prefer pytest over unittest" updates that memory."""
    restates = decision.action == "supersede" and decision.score is not None and decision.score >= SAME_STATEMENT
    return [str(decision.target_id)] if restates else []


def as_conflict(result: CaptureResult, conflicts: list[ConflictRecord]) -> CaptureResult:
    """`result` as a conflict: what was written (pending), and the memories it may contradict."""
    return CaptureResult("conflict", result.memory, None, result.reason, tuple(c.to_dict() for c in conflicts))
