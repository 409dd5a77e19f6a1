"""The generators of the browser client's test fixtures (`web-client/tools/`), loaded as modules."""

from types import ModuleType

from harness.scripts import load_script


def load_web_tool(name: str) -> ModuleType:
    """``web-client/tools/<name>.py`` as a module (the folder is not a package)."""
    return load_script(f"web-client/tools/{name}.py")
