"""benchmarks/run_all.py --part facts: only the fact-survival section is rewritten."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _run_all() -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_section_goes_before_speed_then_replaces_itself() -> None:
    run_all = _run_all()
    doc = "# ctxkeep benchmarks\n\n## Quality\n\nq\n\n## Speed\n\ns\n"
    first = run_all.replace_facts_section(doc, f"{run_all.FACTS_BEGIN}\nold\n{run_all.FACTS_END}")
    assert first.index("old") < first.index("## Speed")
    second = run_all.replace_facts_section(
        first, f"{run_all.FACTS_BEGIN}\nnew\n{run_all.FACTS_END}"
    )
    assert "old" not in second
    assert second.count(run_all.FACTS_BEGIN) == 1
    assert second.replace("new", "old") == first


def test_part_facts_rewrites_only_its_section(tmp_path: Path) -> None:
    run_all = _run_all()
    results = tmp_path / "RESULTS.md"
    old = f"{run_all.FACTS_BEGIN}\nTHE OLD SECTION\n{run_all.FACTS_END}"
    before = f"# ctxkeep benchmarks\n\nkept above\n\n{old}\n\n## Speed\n\nkept below\n"
    results.write_text(before, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--part", "facts",
         "--facts-corpus", "smoke", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600, check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    after = results.read_text(encoding="utf-8")
    assert "THE OLD SECTION" not in after
    assert after.startswith("# ctxkeep benchmarks\n\nkept above\n\n")
    assert after.endswith("\n\n## Speed\n\nkept below\n")
    assert "| ctxkeep/hard | 1% |" in after
    assert "every ctxkeep/hard run within its target (or fits=False)" in after
    assert (tmp_path / "facts.json").exists()
