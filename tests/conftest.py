"""Shared fixtures: every test gets its own AIMATE_HOME; the CLI runs as a real subprocess."""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.zygote import AIMATE, EXEC_ONLY, run_aimate, stop_zygote

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.system import MemorySystem

# One switch for the long passes (docs/reliability.md, "Crashes"): `AIMATE_THOROUGH=1` runs each kill -9
# operation 20 times and the concurrent writers for 20 s; a run of the suite does a representative share of
# each, with fresh random moments every run. Each pass's own variable (AIMATE_KILLS, …) still wins.
THOROUGH = os.environ.get("AIMATE_THOROUGH", "") not in ("", "0")


def thorough_or(variable: str, usual: str, thorough: str) -> str:
    """`variable`'s value if set, else `thorough` under AIMATE_THOROUGH, else `usual`."""
    return os.environ.get(variable) or (thorough if THOROUGH else usual)


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def pytest_configure(config: pytest.Config) -> None:
    """Compile the package once before any test starts a process. Where PYTHONDONTWRITEBYTECODE is set (the
    sandboxes this project is built in set it), the editable install never gets its bytecode written, so every
    `aimate` subprocess, MCP server and daemon of a run compiled the ~120 modules it imports again: `mem list`
    took 0.52 s of CPU, 0.36 s with bytecode (2026-11-28). Python still reads bytecode under that variable;
    this writes what is out of date into `aimate_memory/__pycache__` (git-ignored), in the controller alone."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller did it
        return
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "aimate_memory", quiet=2)  # a failure: just slower


@pytest.fixture(scope="session", autouse=True)
def zygote_stopped() -> Iterator[None]:
    """The worker's zygote (started by its first CLI call, tests/zygote.py) stopped at the session's end, after
    its last child: its children's CPU is then counted in the worker's, as the exec'd processes' was."""
    yield
    stop_zygote()


@pytest.fixture(scope="session", autouse=True)
def no_real_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Whatever runs before a test sets its own home (module fixtures building models, say) writes here,
    never into the real ~/.aimate."""
    os.environ["AIMATE_HOME"] = str(tmp_path_factory.mktemp("session-home"))


@pytest.fixture(scope="session", autouse=True)
def capture_reads_cues_only() -> None:
    """Capture loads the multilingual model even with vector search off (capture.embedding); a test home is
    fresh each time, so that would build the 84 MB model cache in every one. Tests that want the model run
    with vectors (`cli_vectors`, which turns it back on) or set the variable themselves."""
    os.environ.setdefault("AIMATE_CAPTURE__EMBEDDING", "false")


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], object]) -> Path:
    """A folder `build` fills once per run, whichever xdist worker asks first (the others wait on a lock in the
    workers' common temp folder and reuse it). For what tests only read or copy before use."""
    base = factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / name
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / f"{name}.built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (shared / f"{name}.built").touch()
    return folder


def _build_models(folder: Path) -> None:
    """The run's one `aimate mem init` with vectors, in a fresh home (`folder/aimate-home`): it builds the model
    cache a first search would write (state/models: MiniLM rewritten into its fast form, USE unpacked;
    use_cache.py, minilm.py) in its own process, so no worker holds the models in memory. What it printed is
    kept (`folder/init.json`) for the tests about that first build (`first_init`)."""
    result = _template_runner(folder, vectors=True)("mem", "init", env={"AIMATE_NO_DAEMON": "1"}, timeout=600)
    assert result.code == 0, result.err
    (folder / "init.json").write_text(json.dumps([result.code, result.out, result.err]), encoding="utf-8")


def _first_init_home(factory: pytest.TempPathFactory) -> Path:
    return built_once(factory, "model-cache", _build_models)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model cache, built once per run for every worker (by a real `init`, `_build_models`): building it
    took ~3 s of CPU (and 105 MB written) in every test home that searched with vectors. The build itself is
    tested in tests/embedding, which keeps its own caches."""
    return _first_init_home(tmp_path_factory) / "aimate-home" / "state" / "models"


def linked_models(cache: Path, target: Path) -> Path:
    """`target` made a model cache like `cache` (see `model_cache`) out of hard links to its files. The code
    replaces cache files by rename, never in place (minilm_quantize, use_cache), so no test changes the shared
    ones through a link."""
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(cache, target, copy_function=os.link, symlinks=True)
    return target


@pytest.fixture(scope="module")
def loaded_models(model_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> LazyEmbedder:
    """The real default models, loaded once per module in the test process, for tests that ask a fresh
    vault one decision after another in process (`in_process`): each CLI process with vectors loads them
    again (~1.5 s of CPU)."""
    from aimate_memory.config import load_config
    from aimate_memory.embedding.lazy import embedder_for

    folder = tmp_path_factory.mktemp("loaded-models")
    linked_models(model_cache, folder / "state" / "models")
    embedder = embedder_for(load_config(folder, None, env={}), folder / "state")
    assert embedder.get() is not None
    return embedder


def in_process(
    home: Path, project: Path | None = None, models: LazyEmbedder | None = None, **settings: str
) -> MemorySystem:
    """A `MemorySystem` over `home` (and `project`'s vault when given), both initialized, opened as a CLI
    process opens it (`system.opening`) but in the test process: for tests of a decision (where `remember`
    files a sentence, …) that would otherwise start a CLI process per case, where another test covers the
    CLI face. `models`: the loaded ones (`loaded_models`), else keyword-only as `cli` runs; `settings`:
    config as environment variables (`AIMATE_CAPTURE__EMBEDDING="true"`). Commits: use `isolated_git`."""
    from aimate_memory.config import load_config
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.roots import detect_roots

    roots = detect_roots(project=project, global_only=project is None, env={"AIMATE_HOME": str(home)})
    env = {**os.environ, "AIMATE_EMBEDDING__ENABLED": "false" if models is None else "true", **settings}
    config = load_config(roots.home, roots.project, env=env)
    embedder = LazyEmbedder(models.settings, models.get()) if models is not None else None
    system = MemorySystem(roots, config, embedder=embedder)
    system.init()
    return system


def reembedded(system: MemorySystem, timeout: float = 120.0) -> bool:
    """Wait until the worker re-embedding the global vault for a new model has swapped its index in
    (system/reembed.py); False when it had not after `timeout` seconds (its log: state/reembed.log)."""
    index = system.store.index_for(system.global_vault)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if index.reembedding is None and index.needs_rebuild() is None:
            return True
        time.sleep(0.1)
    return False


def seed_models(home: Path, cache: Path) -> None:
    """Give `home` the model cache a first search would have left in it (state/models)."""
    linked_models(cache, home / "state" / "models")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "aimate-home"
    monkeypatch.setenv("AIMATE_HOME", str(path))
    return path


def _template_runner(folder: Path, vectors: bool = False) -> Callable[..., Result]:
    """`cli` (`cli_vectors` when `vectors`) for a home built once per run in `folder` (`built_once`), with git
    isolated from the machine and a fixed identity (the `isolated_git` settings)."""
    gitconfig = folder / "gitconfig"
    gitconfig.write_text("[core]\n\tquotepath = false\n[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    env = {"GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}
    for role in ("AUTHOR", "COMMITTER"):
        env.update({f"GIT_{role}_NAME": "Test Person", f"GIT_{role}_EMAIL": "test@example.com"})
    (folder / "work").mkdir(exist_ok=True)
    run = make_runner(folder / "aimate-home", folder / "work", vectors=vectors)
    return lambda *args, **kwargs: run(*args, **{**kwargs, "env": {**env, **kwargs.get("env", {})}})


def _build_initialized_home(folder: Path) -> None:
    """`aimate mem init` run for real, once, in a non-project folder: what a test that only needs a global
    vault starts from."""
    result = _template_runner(folder)("mem", "init")
    assert result.code == 0, result.err


@pytest.fixture
def initialized(home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`home` holding a global vault as `aimate mem init` leaves it (its first commit included): a copy of one
    built once per run (`built_once`), for tests that need a vault but are not about `init` — a real `init`
    costs ~0.5 s of CPU (a CLI process and git), and the 158 tests that ask for this ran one first. `init`
    itself is tested in tests/cli/test_cli_memory.py and tests/cli/test_private_files.py. Returns the home."""
    shutil.copytree(initialized_template(tmp_path_factory), home, symlinks=True, dirs_exist_ok=True)
    return home


def initialized_template(factory: pytest.TempPathFactory) -> Path:
    """The home `initialized` copies, built once per run (`built_once`). Only read: copy it before use (a
    module-scoped fixture's home, say)."""
    return built_once(factory, "initialized-home", _build_initialized_home) / "aimate-home"


@pytest.fixture
def first_init(home: Path, tmp_path_factory: pytest.TempPathFactory) -> Result:
    """`home` as the run's one `aimate mem init` with vectors left it, the model cache it built included (hard
    links, `linked_models`), and what that `init` printed: for the tests about a new person's first `init`
    (tests/embedding/test_models_ahead.py, tests/security/test_no_code_from_cache.py), which each ran it and
    built both models again (~6 s of CPU each) though the run's `model_cache` is built by the same command."""
    built = _first_init_home(tmp_path_factory)
    linked_models(built / "aimate-home" / "state" / "models", home / "state" / "models")
    shutil.copytree(built / "aimate-home", home, symlinks=True, dirs_exist_ok=True, ignore=_models_folder)
    code, out, err = json.loads((built / "init.json").read_text(encoding="utf-8"))
    return Result(code, out, err)


def _models_folder(folder: str, names: list[str]) -> list[str]:
    return ["models"] if Path(folder).name == "state" else []


@pytest.fixture
def seeded_home(initialized: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """`seeded_home(name, seed)`: `home` as `seed(cli)` left the `initialized` home — run through the real CLI
    once per run for every test that names the same `name`, and copied (`built_once`). For tests that need a
    few memories to work on and are not about the writes that made them: a seed of three `add`s cost ~2 s of
    CPU in every test that ran it. Returns the home."""

    def seeded(name: str, seed: Callable[[Callable[..., Result]], object]) -> Path:
        shutil.rmtree(initialized)
        shutil.copytree(built_seeded_home(tmp_path_factory, name, seed), initialized, symlinks=True)
        return initialized

    return seeded


def built_seeded_home(
    factory: pytest.TempPathFactory, name: str, seed: Callable[[Callable[..., Result]], object]
) -> Path:
    """The home `seed(cli)` leaves in a copy of the `initialized` home, built through the real CLI once per run
    for every test and module that names the same `name` (`built_once`). Only read: copy it before use
    (`seeded_home` does)."""

    def build(folder: Path) -> None:
        shutil.copytree(initialized_template(factory), folder / "aimate-home", symlinks=True)
        seed(_template_runner(folder))

    return built_once(factory, f"seeded-{name}", build) / "aimate-home"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder that is not inside any project (tmp_path's parents hold no markers)."""
    path = tmp_path / "work"
    path.mkdir()
    return path


def make_runner(home: Path, workdir: Path, vectors: bool, real_exec: bool = EXEC_ONLY):
    # Tests about files and commands run keyword-only (no model load per subprocess, ~2 s each);
    # tests about search use `cli_vectors`, which runs the real embedding models.
    # `aimate` on PATH, as for a person who installed it (`install` names it by full path otherwise).
    path = os.pathsep.join([str(AIMATE.parent), os.environ.get("PATH", "")])
    base_env = {**os.environ, "AIMATE_HOME": str(home), "COLUMNS": "200", "PATH": path}
    if not vectors:
        base_env["AIMATE_EMBEDDING__ENABLED"] = "false"
    else:
        base_env["AIMATE_CAPTURE__EMBEDDING"] = "true"

    def run(
        *args: str, cwd: Path | None = None, input: str | None = None, env: dict | None = None, timeout: float = 120
    ) -> Result:
        # Forked from the worker's zygote (tests/zygote.py; AIMATE_TEST_EXEC=1: the real exec, every call).
        full_env = {**base_env, **(env or {})}
        proc = run_aimate(args, cwd=cwd or workdir, env=full_env, input=input, timeout=timeout, real_exec=real_exec)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def cli(home: Path, workdir: Path):
    """Run `aimate ARGS…` as a subprocess against the temp home, in a non-project folder, keyword-only."""
    return make_runner(home, workdir, vectors=False)


@pytest.fixture
def cli_vectors(home: Path, workdir: Path, model_cache: Path):
    """Like `cli`, with the real embedding models (their cache already in the home, as after a first search)."""
    seed_models(home, model_cache)
    return make_runner(home, workdir, vectors=True)


@pytest.fixture
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolate git from the machine: no global/system config, branch `main`, a fixed identity."""
    isolate_git(monkeypatch, tmp_path)


def isolate_git(patch: pytest.MonkeyPatch, folder: Path) -> None:
    """`isolated_git`'s settings through `patch` (its gitconfig in `folder`): for a module-scoped fixture that
    commits in the test process (`pytest.MonkeyPatch.context()`)."""
    global_config = folder / "gitconfig"
    global_config.write_text("[core]\n\tquotepath = false\n[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    patch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        patch.setenv(f"GIT_{role}_NAME", "Test Person")
        patch.setenv(f"GIT_{role}_EMAIL", "test@example.com")


# The longest tests of a run, started before the other slow ones (longest first keeps the end of a run short):
# the kill -9 suite was 40% of all test time (1,100 s for `maintain` alone at load ~10; 2026-11-26).
LONGEST_FIRST = ("tests/reliability/test_kill9.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each worker starts with its share of the slow tests, the longest first, then fast ones. xdist's
    `worksteal` (scripts/test.sh) hands worker k the k-th contiguous block of this order and lets an idle worker
    take the back half of a busy one's queue: with every slow test at the front of the order, all of them fell
    in the first block and ran one after another on one worker, while stealing only ever moved fast tests. Dealt
    out, the long tests run side by side from the start and a run ends on short ones. A slow module goes to one
    worker whole (its module-scoped models load once); the longest tests, which share what they build across
    workers (`built_once`), are dealt one by one."""
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    longest = [[item] for item in slow if item.nodeid.startswith(LONGEST_FIRST)]
    modules = itertools.groupby(
        (item for item in slow if not item.nodeid.startswith(LONGEST_FIRST)), key=lambda item: item.path
    )
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for unit in longest + [list(tests) for _, tests in modules]:
        min(shares, key=len).extend(unit)
    fast = iter([item for item in items if item.get_closest_marker("slow") is None])
    ordered: list[pytest.Item] = []
    left = len(items)
    for k, share in enumerate(shares):
        size = left // (workers - k)  # what xdist sends worker k (worksteal's first split)
        left -= size
        ordered += share + list(itertools.islice(fast, max(0, size - len(share))))
    items[:] = ordered + list(fast)


# The bridge's lexicon packed (text/bridge.py), as a home's first search, prompt hook or `context` keeps it.
_PACK_LEXICON = (
    "import sys; from pathlib import Path; from aimate_memory.text import bridge; "
    "bridge.keep_packed_in(Path(sys.argv[1])); bridge.pack_tables()"
)
# The folders whose test homes start with it (`kept_lexicon`).
LEXICON_KEPT_IN = ("tests/cli/", "tests/integrations/", "tests/mcp/", "tests/ui/", "tests/watch/")


@pytest.fixture(scope="session")
def packed_lexicon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both tables of the bridge's lexicon packed once per run for every worker (`built_once`): a keyword-only
    home packs them in its first process that searches (0.2-0.3 s of CPU) and keeps them in `state/lexicon`
    (embedding/lazy.py `embedder_for`). Only read: homes get hard links (`kept_lexicon`)."""
    return built_once(
        tmp_path_factory,
        "packed-lexicon",
        lambda folder: subprocess.run([sys.executable, "-c", _PACK_LEXICON, str(folder)], check=True, timeout=600),
    )


@pytest.fixture(autouse=True)
def kept_lexicon(request: pytest.FixtureRequest) -> None:
    """In `LEXICON_KEPT_IN`, a test's `home` starts with the packed lexicon in `state/lexicon`, as a home has it
    after its first search: each test's first prompt hook, search or `context` packed it again (0.2-0.3 s of
    CPU). After `initialized` when the test has it. The code
    replaces a kept table by rename, never in place, so no test changes the run's copy through a link; the
    packing itself is tested in tests/text/test_bridge_packed.py."""
    if "home" not in request.fixturenames or not str(request.node.nodeid).startswith(LEXICON_KEPT_IN):
        return
    if "initialized" in request.fixturenames:
        request.getfixturevalue("initialized")
    home: Path = request.getfixturevalue("home")
    folder = home / "state" / "lexicon"
    for part in (home, home / "state", folder):
        part.mkdir(mode=0o700, exist_ok=True)
    for packed in request.getfixturevalue("packed_lexicon").glob("lexicon-*.packed"):
        if not (folder / packed.name).exists():
            os.link(packed, folder / packed.name)
