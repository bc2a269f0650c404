"""Generates the Python gRPC code of `protos/connect/v1` next to the sources.

Generated modules import each other as `connect.v1.x_pb2`, so `protos/` is the import root
(installed as the `connect` package by pyproject.toml). The output is committed; `make protos-check`
regenerates it and fails on a diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
PACKAGE = PROTOS / "connect" / "v1"


def main() -> int:
    sources = sorted(str(p.relative_to(PROTOS)) for p in PACKAGE.glob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{PROTOS}",
            f"-I{include}",
            f"--python_out={PROTOS}",
            f"--pyi_out={PROTOS}",
            f"--grpc_python_out={PROTOS}",
            *sources,
        ]
    )
    if status != 0:
        return status
    for package in (PROTOS / "connect", PACKAGE):
        init = package / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated gRPC contract; see scripts/gen_protos.py."""\n')
    return 0


if __name__ == "__main__":
    sys.exit(main())
