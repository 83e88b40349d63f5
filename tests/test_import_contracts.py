"""The ``layers_with_string_edges`` contract (``tests/import_contracts.py``) sees what an import
graph does not: a ``"package.module:attribute"`` string that points up a layer, and one that names
no module. Checked on a tiny package written here, so the real package's tables stay as they are.
"""

from __future__ import annotations

import textwrap
import zlib

import grimp
import pytest

from tests.import_contracts import LayersWithStringEdgesContract


def check(tmp_path, monkeypatch, low_source: str, name: str):
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("class Thing:\n    pass\n")
    (package / "low.py").write_text(textwrap.dedent(low_source))
    monkeypatch.syspath_prepend(str(tmp_path))
    contract = LayersWithStringEdgesContract(
        name="layers",
        session_options={"root_packages": [name]},
        contract_options={"layers": [f"{name}.high", f"{name}.low"]},
    )
    return contract.check(grimp.build_graph(name, cache_dir=None), verbose=False)


@pytest.mark.parametrize(
    ("source", "kept", "unknown"),
    [
        ('NAMES = {"up": "PKG.high:Thing"}\n', False, []),  # points up a layer, as a string only
        ('FACTORY = f"PKG.high:{NAME}"\nNAME = "Thing"\n', False, []),  # an f-string too
        ('PATH = "PKG.gone:Thing"\n', False, ["'PKG.gone:Thing'"]),  # a stale reference
        ('DOC = "PKG.high is the layer above"\nTAG = "PKG.format"\n', True, []),  # prose, a top-level name
        ('SAME = "PKG.low:NAMES"\nNAMES = {}\n', True, []),
    ],
)
def test_strings_that_name_modules_count_as_imports(tmp_path, monkeypatch, source, kept, unknown):
    name = f"stringedges_{zlib.crc32(source.encode())}"
    result = check(tmp_path, monkeypatch, source.replace("PKG", name), name)
    assert result.kept is kept
    found = [where.split(": ", 1)[1] for where in result.metadata["unknown_module_strings"]]
    assert found == [text.replace("PKG", name) for text in unknown]
