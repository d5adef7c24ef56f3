"""A minimal PEP 517 build backend for the ``gymkit`` package.

It needs nothing but the standard library, so ``pip install ./python`` works offline (pip installs
no build requirements for it). It builds a pure-Python wheel of the ``gymkit`` folder, an sdist, and
an editable wheel (a ``.pth`` file pointing at this folder). Name and version are read from
``pyproject.toml`` with a tiny parser (``tomllib`` only exists from Python 3.11).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "gymkit"
TAG = "py3-none-any"


def _project() -> Dict[str, str]:
    """The ``[project]`` table's simple string keys (name, version, description, requires-python)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as handle:
        text = handle.read()
    fields: Dict[str, str] = {}
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped
            continue
        match = re.match(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"\s*$', stripped)
        if section == "[project]" and match:
            fields[match.group(1)] = match.group(2)
    for key in ("name", "version"):
        if key not in fields:
            raise RuntimeError(f"pyproject.toml: [project] has no {key}")
    return fields


def _dist_name() -> str:
    project = _project()
    return f"{project['name']}-{project['version']}"


def _metadata() -> str:
    project = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        "License: Apache-2.0",
    ]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    return "\n".join(lines) + "\n"


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: gymkit-backend\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files() -> List[Tuple[str, str]]:
    """(path on disk, path in the archive) of every source file of the package."""
    found: List[Tuple[str, str]] = []
    base = os.path.join(ROOT, PACKAGE)
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".typed")):
                full = os.path.join(folder, name)
                found.append((full, os.path.relpath(full, ROOT).replace(os.sep, "/")))
    return found


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(directory: str, entries: List[Tuple[str, bytes]]) -> str:
    dist = _dist_name()
    info = f"{dist}.dist-info"
    entries = entries + [(f"{info}/METADATA", _metadata().encode()), (f"{info}/WHEEL", _wheel_file().encode())]
    record = [_record_line(path, data) for path, data in entries] + [f"{info}/RECORD,,"]
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    filename = f"{dist}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return filename


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    info = f"{_dist_name()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as handle:
        handle.write(_metadata())
    with open(os.path.join(metadata_directory, info, "WHEEL"), "w", encoding="utf-8") as handle:
        handle.write(_wheel_file())
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [(arc, _read(full)) for full, arc in _package_files()])


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [(f"_{PACKAGE}_editable.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    dist = _dist_name()
    filename = f"{dist}.tar.gz"
    files = [(os.path.join(ROOT, "pyproject.toml"), "pyproject.toml"), (os.path.join(ROOT, "_build", "backend.py"), "_build/backend.py")]
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        files.append((readme, "README.md"))
    files += _package_files()
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as archive:
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{dist}/PKG-INFO")
        info.size = len(pkg_info)
        archive.addfile(info, io.BytesIO(pkg_info))
        for full, arc in files:
            archive.add(full, arcname=f"{dist}/{arc}")
    return filename
