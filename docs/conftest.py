"""Doc tests: every page in docs/ is one test, and its fenced examples run in order, as a reader would run them,
against a real MiniLake started for the page (bash docs/test.sh; docs/README.md says how to write a page).

A fence's info string is the language, then flags and key=value attributes:

    ```python                   run with Python (the e2e venv: databricks-sdk, the SQL connector, pandas, mcp)
    ```sh / ```bash             run with bash -euo pipefail
    ```ts / ```js               run with node (TypeScript transpiled first), resolving packages from docs/
    ```sql                      each statement through the Statement Execution API on the starter warehouse
    ```yaml workflow            a GitHub Actions workflow: the MiniLake action's step runs action/start.sh with its
                                `with:` inputs, then every `run:` step in order in the environment it exported
    ```<any> file=PATH          written to PATH in the page's folder (databricks.yml, main.tf, test_x.py...)
    ```text output              each line must appear, in order, in the output of the block before it
    ```<any> no-run             shown only (install lines for packages the runner provides, placeholders)

A page can start with a comment that sets how it runs:

    <!-- doctest
    server: MINILAKE_MCP=1 MINILAKE_WAREHOUSE_START_DELAY=0   (settings of the page's server)
    needs: cli terraform dbt spark docker chromium             (skipped, saying why, when one is missing)
    timeout: 900                                               (seconds per block, default 300)
    venv: fresh                                                (sh blocks get a new venv first on PATH, whose
                                                                pip finds this repository's wheels)
    python: mlflow                                             (python is the MLflow install's)
    -->

Every block sees DATABRICKS_HOST and DATABRICKS_TOKEN for the page's server, a HOME of its own (no
~/.databrickscfg until a block writes one), and on PATH: `minilake` (the built server), `databricks` (the CLI), `terraform` (with the
provider from the local mirror), `dbt`, and the e2e venv's `python` and `pytest` (with pytest-minilake).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from pytest_minilake import start

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
CACHE = Path(os.environ.get("MINILAKE_CACHE") or Path.home() / ".cache" / "minilake")
BIN = os.environ.get("PYTEST_MINILAKE_BIN") or str(ROOT / "apps" / "server" / "dist" / "cli.js")
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
META = re.compile(r"<!--\s*doctest\b(.*?)-->", re.S)
SHOWN_ONLY = {"", "text", "json", "console", "output", "toml", "ini", "properties", "dockerfile"}


@dataclass
class Block:
    lang: str
    flags: set
    attrs: Dict[str, str]
    code: str
    line: int


@dataclass
class Page:
    server_env: Dict[str, str] = field(default_factory=dict)
    needs: List[str] = field(default_factory=list)
    timeout: int = 300
    fresh_venv: bool = False
    python: str = ""
    blocks: List[Block] = field(default_factory=list)


def parse(text: str) -> Page:
    page = Page()
    m = META.search(text)
    if m:
        for line in m.group(1).strip().splitlines():
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "server":
                page.server_env.update(dict(kv.split("=", 1) for kv in shlex.split(value)))
            elif key == "needs":
                page.needs = value.split()
            elif key == "timeout":
                page.timeout = int(value)
            elif key == "venv":
                page.fresh_venv = value == "fresh"
            elif key == "python":
                page.python = value
    for f in FENCE.finditer(text):
        words = f.group(1).split()
        lang = words[0].lower() if words else ""
        flags = {w for w in words[1:] if "=" not in w}
        attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        page.blocks.append(Block(lang, flags, attrs, f.group(2), text.count("\n", 0, f.start()) + 1))
    return page


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix == ".md" and file_path.parent == DOCS and file_path.name != "README.md":
        return DocFile.from_parent(parent, path=file_path)


class DocFile(pytest.File):
    def collect(self):
        # A page without examples to run (the generated configuration reference) is no test.
        if any(_runnable(b) for b in parse(self.path.read_text()).blocks):
            yield DocPage.from_parent(self, name=self.path.stem)


def _runnable(b: Block) -> bool:
    return "file" in b.attrs or ("no-run" not in b.flags and b.lang not in SHOWN_ONLY)


class DocFailure(Exception):
    def __init__(self, block: Block, page: Path, message: str):
        super().__init__(f"{page.name}:{block.line}: the ```{block.lang}``` example {message}")


# -- what the blocks need --------------------------------------------------------------------------------


def _versions() -> Dict[str, str]:
    out = {}
    for line in (ROOT / "e2e" / "tools" / "versions.sh").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _tools() -> Dict[str, Optional[str]]:
    v = _versions()
    tools = CACHE / "tools"
    dbt_hash = hashlib.sha256((ROOT / "e2e" / "dbt" / "requirements.txt").read_bytes()).hexdigest()[:12]
    found = {
        "cli": tools / f"databricks-{v['CLI_VERSION']}",
        "terraform": tools / f"terraform-{v['TF_VERSION']}",
        "tfrc": tools / f"tfrc-{v['PROVIDER_VERSION']}",
        "dbt": CACHE / f"venv-dbt-{dbt_hash}" / "bin" / "dbt",
    }
    return {k: (str(p) if p.exists() else None) for k, p in found.items()}


def _why_missing(need: str, tools: Dict[str, Optional[str]]) -> Optional[str]:
    if need == "cli" and not tools["cli"]:
        return "the Databricks CLI is not built (bash e2e/tools/build.sh)"
    if need == "terraform" and not (tools["terraform"] and tools["tfrc"]):
        return "Terraform and the provider are not built (bash e2e/tools/build.sh)"
    if need == "dbt" and not tools["dbt"]:
        return "the dbt venv is missing (bash e2e/python/run.sh test_dbt.py makes it)"
    if need == "spark":
        versions = json.loads((ROOT / "packages" / "engine-spark" / "versions.json").read_text())
        if not (CACHE / f"spark-{versions['pyspark']}-delta-{versions['deltaSpark']}" / ".complete").exists():
            return "the Spark install is missing (bash packages/engine-spark/install.sh)"
    if need == "mlflow" and not _mlflow_bin():
        return "MLflow is not installed (bash packages/mlflow/install.sh)"
    if need == "chromium" and not any(os.path.exists(p) for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser")):
        return "no Chromium (apt-get install chromium)"
    if need == "docker":
        if not shutil.which("docker") or subprocess.run(["docker", "info"], capture_output=True).returncode:
            return "no Docker daemon answers (eval \"$(bash docker/dockerd.sh start)\")"
        if subprocess.run(["docker", "image", "inspect", "minilake:slim"], capture_output=True).returncode:
            return "no minilake:slim image (bash docker/build.sh --slim)"
    return None


def _mlflow_bin() -> Optional[str]:
    """The MLflow install's venv (packages/mlflow/install.sh): the client and the server MiniLake runs."""
    version = json.loads((ROOT / "packages" / "mlflow" / "versions.json").read_text())["mlflow"]
    b = CACHE / f"mlflow-{version}" / "venv" / "bin"
    return str(b) if (b / "python").exists() else None


def _shims(bin_dir: Path, tools: Dict[str, Optional[str]]) -> None:
    """`minilake`, `databricks`, `terraform` and `dbt` as a reader who installed them has them."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "minilake").write_text(f"#!/bin/sh\nexec node {shlex.quote(BIN)} \"$@\"\n")
    (bin_dir / "minilake").chmod(0o755)
    for name, key in (("databricks", "cli"), ("terraform", "terraform"), ("dbt", "dbt")):
        if tools[key]:
            (bin_dir / name).symlink_to(tools[key])


def _wheels(dest: Path) -> Path:
    """This repository's Python packages as wheels, for `pip install pytest-minilake` on a fresh-venv page."""
    if not any(dest.glob("*.whl")):
        for pkg in ("pytest-minilake", "testcontainers-minilake"):
            subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest),
                            str(ROOT / "python" / pkg)], check=True, capture_output=True, timeout=600)
            shutil.rmtree(ROOT / "python" / pkg / "build", ignore_errors=True)
    return dest


class DocPage(pytest.Item):
    def runtest(self) -> None:
        page = parse(self.path.read_text())
        tools = _tools()
        for need in page.needs:
            why = _why_missing(need, tools)
            if why:
                pytest.skip(f"{self.path.name} needs {need}: {why}")
        work = Path(tempfile.mkdtemp(prefix=f"doc-{self.path.stem}-"))
        # TypeScript runs from inside docs/, so `import ... from '@databricks/sdk-experimental'` resolves there.
        ts_dir = DOCS / ".run" / f"{self.path.stem}-{os.getpid()}"
        server = start(bin=BIN, env={"MINILAKE_WAREHOUSE_START_DELAY": "0.2", **page.server_env}, timeout=120)
        try:
            env = self._env(server, work, tools, page)
            last = ""
            for block in page.blocks:
                last = self._run(block, page, work, ts_dir, env, server, last)
        finally:
            server.stop()
            shutil.rmtree(ts_dir, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)

    def _env(self, server, work: Path, tools, page: Page) -> Dict[str, str]:
        home = work / ".home"
        home.mkdir()
        shims = work / ".bin"
        _shims(shims, tools)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DATABRICKS_", "MINILAKE_", "PYTEST_MINILAKE_", "SPARK_", "TF_"))}
        path = [str(shims), os.path.dirname(sys.executable), env.get("PATH", "")]
        if page.python == "mlflow":
            path.insert(0, _mlflow_bin() or "")
        if page.fresh_venv:
            venv = work / ".venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
            path.insert(0, str(venv / "bin"))
            env["PIP_FIND_LINKS"] = str(_wheels(CACHE / "doc-wheels" / self._sources_hash()))
            env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
            env.pop("PYTHONPATH", None)
        env.update(
            PATH=os.pathsep.join(path), HOME=str(home), DATABRICKS_HOST=server.url, DATABRICKS_TOKEN=server.token,
            CHECKPOINT_DISABLE="1", NO_COLOR="1", DO_NOT_TRACK="1",
            DBT_SEND_ANONYMOUS_USAGE_STATS="false", TF_IN_AUTOMATION="1", MINILAKE_CACHE=str(CACHE),
            PYTEST_ADDOPTS="-p no:cacheprovider",
        )
        # npm's cache is the machine's (npx keeps what it installed there), not the page's fresh HOME's.
        env["npm_config_cache"] = os.environ.get("npm_config_cache") or str(Path.home() / ".npm")
        if any(b.lang in ("yaml", "yml") and "workflow" in b.flags for b in page.blocks):
            env["MINILAKE_DOC_SERVER_TGZ"] = self._server_tgz(work)
            from pytest_minilake import free_port

            env["MINILAKE_DOC_PORT"] = str(free_port())
        if tools["tfrc"]:
            # Terraform finds the provider in the local mirror (no registry), and so do bundles' terraform engine.
            env.update(TF_CLI_CONFIG_FILE=tools["tfrc"], DATABRICKS_TF_EXEC_PATH=tools["terraform"] or "",
                       DATABRICKS_TF_VERSION=_versions()["TF_VERSION"], DATABRICKS_TF_CLI_CONFIG_FILE=tools["tfrc"])
        if shutil.which("docker"):
            env["TESTCONTAINERS_RYUK_DISABLED"] = "true"  # no registry for testcontainers' reaper image
            if os.environ.get("DOCKER_HOST"):
                env["DOCKER_HOST"] = os.environ["DOCKER_HOST"]
        return env

    def _server_tgz(self, work: Path) -> str:
        """The server package as npm would publish it (pnpm pack), for workflows that install it with npx."""
        dest = work / ".tgz"
        dest.mkdir()
        subprocess.run(["pnpm", "pack", "--pack-destination", str(dest)], cwd=ROOT / "apps" / "server", check=True,
                       capture_output=True, timeout=300)
        return str(next(dest.glob("*.tgz")))

    def _sources_hash(self) -> str:
        h = hashlib.sha256()
        for p in sorted((ROOT / "python").rglob("*")):
            if p.is_file() and p.suffix in (".py", ".toml", ".md") and "build" not in p.parts:
                h.update(p.read_bytes())
        return h.hexdigest()[:12]

    def _run(self, block: Block, page: Page, work: Path, ts_dir: Path, env, server, last: str) -> str:
        if "file" in block.attrs:
            dest = work / block.attrs["file"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(block.code)
            return last
        if "no-run" in block.flags:
            return last
        if block.lang == "text" and "output" in block.flags:
            pos = 0
            for want in (l.strip() for l in block.code.splitlines()):
                if not want:
                    continue
                at = last.find(want, pos)
                if at < 0:
                    raise DocFailure(block, self.path, f"expects the line {want!r} in the output above, which "
                                     f"was:\n{last[-3000:]}")
                pos = at + len(want)
            return last
        if block.lang in SHOWN_ONLY:
            return last
        scratch = work / ".doctest"
        scratch.mkdir(exist_ok=True)
        if block.lang == "python":
            f = scratch / f"block_{block.line}.py"
            f.write_text(block.code)
            cmd = ["python", str(f)]
        elif block.lang in ("sh", "bash", "shell"):
            f = scratch / f"block_{block.line}.sh"
            f.write_text(block.code)
            cmd = ["bash", "-euo", "pipefail", str(f)]
        elif block.lang in ("ts", "typescript", "js", "javascript"):
            ts_dir.mkdir(parents=True, exist_ok=True)
            f = ts_dir / f"block_{block.line}.{'ts' if block.lang.startswith('t') else 'mjs'}"
            f.write_text(block.code)
            cmd = ["node", str(DOCS / "tools" / "run-ts.mjs"), str(f)]
        elif block.lang == "sql":
            return self._sql(block, server)
        elif block.lang in ("yaml", "yml") and "workflow" in block.flags:
            f = scratch / f"workflow_{block.line}.yml"
            f.write_text(block.code)
            cmd = ["node", str(DOCS / "tools" / "run-workflow.mjs"), str(f)]
        else:
            raise DocFailure(block, self.path, "has a language the doc runner cannot run: mark it no-run or give "
                             "it file=PATH")
        try:
            p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=page.timeout)
        except subprocess.TimeoutExpired as e:
            raise DocFailure(block, self.path, f"did not finish in {page.timeout} s:\n{(e.stdout or '')[-3000:]}")
        out = p.stdout + p.stderr
        if p.returncode != 0:
            raise DocFailure(block, self.path, f"exited {p.returncode}:\n{out[-4000:]}")
        return out

    def _sql(self, block: Block, server) -> str:
        out = []
        for stmt in (s.strip() for s in block.code.split(";")):
            if not stmt or all(l.strip().startswith("--") or not l.strip() for l in stmt.splitlines()):
                continue
            status, body = server.request("POST", "/api/2.0/sql/statements",
                                          {"warehouse_id": "dev", "statement": stmt, "wait_timeout": "50s"})
            state = (body or {}).get("status", {}).get("state") if isinstance(body, dict) else None
            if status != 200 or state != "SUCCEEDED":
                raise DocFailure(block, self.path, f"statement failed: {stmt}\n{status} {json.dumps(body)[:2000]}")
            rows = ((body.get("result") or {}).get("data_array")) or []
            out.append("\n".join(" | ".join("NULL" if v is None else str(v) for v in r) for r in rows))
        return "\n".join(out)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, DocFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"docs/{self.path.name}"
