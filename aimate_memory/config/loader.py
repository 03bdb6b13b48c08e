"""Load, validate and edit configuration. Files are edited with ruamel round-trip: comments survive."""

from __future__ import annotations

import copy
import difflib
import io
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from aimate_memory.config.defaults import (
    ADDS,
    CHOICES,
    DEFAULTS,
    KEY_SCOPES,
    NULLABLE_STRING_KEYS,
    PERSON,
    RAISES,
    RENAMED_KEYS,
    RETIRED_KEYS,
)
from aimate_memory.errors import ConfigError
from aimate_memory.vault.atomic import atomic_write_text

ENV_PREFIX = "AIMATE_"
# AIMATE_HOME is the root, not a key; other AIMATE_SECTION__KEY variables override keys.
ENV_RESERVED = {"AIMATE_HOME", "AIMATE_DEBUG"}
# Where a value came from (`Config.origin`, `aimate mem config get KEY`): the layers, lowest first.
DEFAULT, GLOBAL, PROJECT_FILE, ENVIRONMENT = "default", "global", "project", "env"


class Config:
    """Validated settings. `get("short_term.default_ttl_days")`, `section("embedding")`."""

    def __init__(
        self,
        values: dict[str, dict[str, Any]],
        sources: list[str],
        deprecations: list[str] | None = None,
        origins: dict[str, list[str]] | None = None,
        refused: list[str] | None = None,
    ) -> None:
        self._values = values
        self.sources = sources
        # One line per renamed key found in a file or the environment (RENAMED_KEYS): what to write instead.
        self.deprecations = deprecations or []
        self._origins = origins or {}
        # Keys the project's config set that only the person's own may (KEY_SCOPES): ignored, to be named.
        self.refused = refused or []

    def origin(self, dotted: str) -> str:
        """Where the value of `dotted` came from: `default`, `global`, `project`, `env`, or layers joined by
        `+` for a list a project added to (`global+project`)."""
        section, key = _split_key(dotted)
        return "+".join(self._origins.get(f"{section}.{key}", [DEFAULT]))

    def get(self, dotted: str) -> Any:
        section, key = _split_key(dotted)
        return self._values[section][key]

    def section(self, name: str) -> dict[str, Any]:
        if name not in self._values:
            raise ConfigError(f"unknown config section '{name}'", _nearest_hint(name, list(DEFAULTS)))
        return dict(self._values[name])

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return copy.deepcopy(self._values)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def config_path(root: Path) -> Path:
    """`root` is `~/.aimate` or `{project}/.aimate`."""
    return root / "config.yaml"


def load_config(global_root: Path, project_root: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Defaults ← the person's `config.yaml` ← the project's (only the keys KEY_SCOPES lets a project set;
    docs/reliability.md, "Trust model") ← `AIMATE_*` environment variables (the person's too)."""
    layers = _Layers(copy.deepcopy(DEFAULTS))
    sources = ["defaults"]
    for root, layer in ((global_root, GLOBAL), (project_root, PROJECT_FILE)):
        if root is None:
            continue
        path = config_path(root)
        if path.is_file():
            layers.merge(_read_file(path), str(path), layer)
            sources.append(str(path))
    env_overrides = _from_env(os.environ if env is None else env)
    if env_overrides:
        layers.merge(env_overrides, "environment", ENVIRONMENT)
        sources.append("environment")
    return Config(layers.values, sources, layers.deprecations, layers.origins, layers.refused)


def project_may_set(dotted: str) -> bool:
    """Whether a project's config may set this key (KEY_SCOPES); ConfigError for an unknown key."""
    section, key = _split_key(dotted)
    return KEY_SCOPES[f"{section}.{key}"] != PERSON


def project_entries(path: Path) -> list[tuple[str, Any]]:
    """(`section.key`, raw value) of every setting in one config file, renamed keys under their new name."""
    return list(_entries(_read_file(path), str(path), []))


def _read_file(path: Path) -> dict[str, Any]:
    try:
        loaded = _yaml().load(path.read_text(encoding="utf-8"))
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: broken YAML in config", "fix the file or delete it") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, Mapping):
        raise ConfigError(f"{path}: config must be a mapping of sections", "see `aimate mem config path`")
    return {str(k): v for k, v in loaded.items()}


class _Layers:
    """The values being merged, with where each came from and what a project was refused."""

    def __init__(self, values: dict[str, dict[str, Any]]) -> None:
        self.values = values
        self.origins: dict[str, list[str]] = {}
        self.deprecations: list[str] = []
        self.refused: list[str] = []

    def merge(self, overrides: Mapping[str, Any], origin: str, layer: str) -> None:
        for dotted, value in _entries(overrides, origin, self.deprecations):
            scope = KEY_SCOPES[dotted]
            if layer == PROJECT_FILE and scope == PERSON:
                self.refused.append(dotted)  # before validating: a refused key's value is never read
                continue
            section, _, key = dotted.partition(".")
            valid = validate_value(dotted, value, origin)
            if layer == PROJECT_FILE and scope == RAISES and valid < self.values[section][key]:
                self.refused.append(dotted)  # a project may make a guard stricter, never looser
                continue
            if layer == PROJECT_FILE and scope == ADDS:
                # A project's privacy list adds to the person's: it can never take an entry away.
                held = self.values[section][key]
                added = [item for item in valid if item not in held]
                valid = held + added
                if added:
                    self.origins.setdefault(dotted, [DEFAULT]).append(layer)
            else:
                self.origins[dotted] = [layer]
            self.values[section][key] = valid


def _entries(overrides: Mapping[str, Any], origin: str, deprecations: list[str]) -> Iterator[tuple[str, Any]]:
    """(`section.key`, raw value) of a file's or the environment's settings, renamed keys under their new
    name (and a deprecation line each); retired keys are skipped, unknown sections refused."""
    for section, entries in overrides.items():
        if section not in DEFAULTS:
            raise ConfigError(f"unknown config section '{section}' in {origin}", _nearest_hint(section, list(DEFAULTS)))
        if entries is None:
            continue
        if not isinstance(entries, Mapping):
            raise ConfigError(f"config section '{section}' in {origin} must be a mapping", "write `key: value` lines")
        for key, value in entries.items():
            dotted = f"{section}.{key}"
            if dotted in RETIRED_KEYS:
                continue
            if dotted in RENAMED_KEYS:
                new_section, _, new_key = RENAMED_KEYS[dotted].partition(".")
                deprecations.append(f"{dotted} in {origin} is now {RENAMED_KEYS[dotted]} (the old name is still read)")
                if new_key in entries and new_section == section:
                    continue  # both names given: the new one wins
                yield RENAMED_KEYS[dotted], value
                continue
            section_name, key_name = _split_key(dotted)
            yield f"{section_name}.{key_name}", value


def validate_value(dotted: str, value: Any, origin: str = "value") -> Any:
    section, key = _split_key(dotted)
    dotted = f"{section}.{key}"
    default = DEFAULTS[section][key]
    if dotted in NULLABLE_STRING_KEYS:
        if value is None or isinstance(value, str):
            return value
        raise ConfigError(f"{dotted} in {origin} must be text, got {value!r}", f"e.g. `{dotted}: some-text`")
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
    elif isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(default, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif isinstance(default, list):
        if isinstance(value, list):
            return [str(item) for item in value]
    elif isinstance(default, str) and isinstance(value, str):
        if dotted not in CHOICES or value in CHOICES[dotted]:
            return value
        choices = " or ".join(CHOICES[dotted])
        raise ConfigError(f"{dotted} in {origin} must be {choices}, got {value!r}", f"default is {default!r}")
    kind = type(default).__name__
    raise ConfigError(f"{dotted} in {origin} must be {kind}, got {value!r}", f"default is {default!r}")


def _split_key(dotted: str) -> tuple[str, str]:
    """`section.key` of a known key; a renamed key gives its new name's."""
    dotted = RENAMED_KEYS.get(dotted, dotted)
    section, _, key = dotted.partition(".")
    if dotted in RETIRED_KEYS:
        raise ConfigError(f"config key '{dotted}' is retired", RETIRED_KEYS[dotted])
    if section not in DEFAULTS or key not in DEFAULTS[section]:
        raise ConfigError(
            f"unknown config key '{dotted}'", _nearest_hint(dotted, [f"{s}.{k}" for s in DEFAULTS for k in DEFAULTS[s]])
        )
    return section, key


def _nearest_hint(typed: str, known: list[str]) -> str:
    """ "did you mean …?" for a mistyped name: the closest whole name, else the closest by its last part
    (`default_ttl_days` → `short_term.default_ttl_days`); never the whole list (45 keys)."""
    listing = "`aimate mem config get` prints every key"
    close = difflib.get_close_matches(typed, known, n=1, cutoff=0.6)
    if not close:
        tails = {name.rpartition(".")[2]: name for name in known}
        close = [tails[t] for t in difflib.get_close_matches(typed.rpartition(".")[2], list(tails), n=1, cutoff=0.7)]
    return f"did you mean `{close[0]}`? ({listing})" if close else listing


def parse_scalar(text: str) -> Any:
    """A value typed on the command line, read as YAML (`true`, `5`, `0.9`, `[a, b]`, `null`)."""
    try:
        return YAML(typ="safe").load(text)
    except YAMLError:
        return text


def _from_env(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """`AIMATE_SHORT_TERM__DEFAULT_TTL_DAYS=7` → short_term.default_ttl_days = 7."""
    overrides: dict[str, dict[str, Any]] = {}
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name in ENV_RESERVED or "__" not in name:
            continue
        section, _, key = name[len(ENV_PREFIX) :].lower().partition("__")
        _split_key(f"{section}.{key}")
        overrides.setdefault(section, {})[key] = parse_scalar(raw)
    return overrides


def set_config_value(path: Path, dotted: str, raw_value: str) -> Any:
    """Set one key in a config file, keeping every comment and the order of what is there."""
    value = validate_value(dotted, parse_scalar(raw_value), "the new value")
    section, key = _split_key(dotted)
    yaml = _yaml()
    document = yaml.load(path.read_text(encoding="utf-8")) if path.is_file() else None
    if document is None:
        document = CommentedMap()
    if not isinstance(document, CommentedMap):
        raise ConfigError(f"{path}: config must be a mapping of sections", "fix or delete the file")
    entries = document.get(section)
    if not isinstance(entries, CommentedMap):
        entries = CommentedMap()
        document[section] = entries
    entries[key] = value
    for old, new in RENAMED_KEYS.items():
        if new == f"{section}.{key}":
            entries.pop(old.partition(".")[2], None)  # the file keeps one name for the key: the new one
    stream = io.StringIO()
    yaml.dump(document, stream)
    atomic_write_text(path, stream.getvalue())
    return value


def unset_config_value(path: Path, dotted: str) -> bool:
    """Remove one key from a config file (its section too when left empty), keeping every comment and the
    order of the rest; the file is deleted when nothing is left in it. True when the key was there."""
    section, key = _split_key(dotted)
    if not path.is_file():
        return False
    yaml = _yaml()
    document = yaml.load(path.read_text(encoding="utf-8"))
    entries = document.get(section) if isinstance(document, CommentedMap) else None
    if not isinstance(entries, CommentedMap) or key not in entries:
        return False
    del entries[key]
    if not entries:
        del document[section]
    if not document:
        path.unlink()
        return True
    stream = io.StringIO()
    yaml.dump(document, stream)
    atomic_write_text(path, stream.getvalue())
    return True
