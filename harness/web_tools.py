"""The generators of the browser client's test fixtures (`web-client/tools/`), loaded as modules."""

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_web_tool(name: str) -> ModuleType:
    """``web-client/tools/<name>.py`` as a module (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "web-client" / "tools" / f"{name}.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
