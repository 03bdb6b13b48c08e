"""Configuration: defaults ← `~/.aimate/config.yaml` ← `{project}/.aimate/config.yaml` (KEY_SCOPES) ← `AIMATE_*` env."""

from aimate_memory.config.loader import Config, config_path, load_config, set_config_value

__all__ = ["Config", "config_path", "load_config", "set_config_value"]
