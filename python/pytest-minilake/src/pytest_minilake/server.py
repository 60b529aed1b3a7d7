"""Starting, calling and stopping a MiniLake server, with nothing but the standard library.

A server comes from one of four sources, tried in this order when several are given:

- ``url``: one that already runs (nothing is started or stopped),
- ``bin``: the ``minilake`` bin of a build (``apps/server/dist/cli.js``, run with node), any executable, or a
  packed tarball of ``@minilake/server`` (``*.tgz``, installed and run by ``npx``),
- ``image``: a Docker image (``minilake:local``), run with the ``docker`` client,
- ``npm``: the npm package (``@minilake/server``, or any spec npm understands), run by ``npx``.

Every started server gets a free port, its own data directory and, unless told otherwise, a free Spark
Connect port. Start-up waits for ``/_minilake/ready``; a server that exits or never gets ready raises
:class:`MiniLakeStartError` carrying the tail of its output.
"""
from __future__ import annotations

import atexit
import collections
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Sequence, Tuple

DEFAULT_TOKEN = "dapi-minilake"
DEFAULT_NPM_PACKAGE = "@minilake/server"
# What the start-up line says (apps/server/src/cli.ts): "MiniLake <v> listening on <url> (...)".
LISTENING = re.compile(r"listening on (https?://\S+)")
SPARK_CONNECT = re.compile(r"sc://([^\s:/]+):(\d+)")
_OUTPUT_LINES = 2000
# What MiniLake.env() sets for clients (and the plugin for the session).
CLIENT_ENV = ("DATABRICKS_HOST", "DATABRICKS_TOKEN", "DATABRICKS_CONFIG_FILE", "MINILAKE_URL",
              "MINILAKE_SPARK_REMOTE", "MINILAKE_CA_FILE")


class MiniLakeStartError(RuntimeError):
    """The server did not start: the message says how it was started and ends with its output's tail."""


class MiniLakeError(RuntimeError):
    """An admin call (reset, snapshot, restore) was refused: the message carries the server's answer."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MiniLake:
    """A running MiniLake: its URL (``str(server)`` is the URL too), the token to use, admin calls
    (reset, snapshots), the environment clients read, and stop."""

    def __init__(self, url: str, *, token: str = DEFAULT_TOKEN, kind: str = "url",
                 data_dir: Optional[str] = None, spark_connect_url: Optional[str] = None,
                 proc: Optional[subprocess.Popen] = None, output: Optional[Deque[str]] = None,
                 stopper: Optional[Callable[[bool], None]] = None, container: Optional[str] = None,
                 describe: str = ""):
        self.url = url.rstrip("/")
        self.token = token
        self.kind = kind
        self.data_dir = data_dir
        self.spark_connect_url = spark_connect_url
        self.proc = proc
        self.container = container
        self.describe = describe or kind
        self._output = output if output is not None else collections.deque(maxlen=_OUTPUT_LINES)
        self._stopper = stopper
        self._stopped = False
        self._ca_copy: Optional[str] = None

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"MiniLake({self.url!r}, {self.describe})"

    @property
    def host(self) -> str:
        """What DATABRICKS_HOST is set to: the URL."""
        return self.url

    @property
    def output(self) -> List[str]:
        """The server's output lines so far (the last 2,000), from its process or ``docker logs``."""
        if self.container:
            r = subprocess.run(["docker", "logs", "--tail", str(_OUTPUT_LINES), self.container],
                               capture_output=True, text=True)
            return (r.stdout + r.stderr).splitlines(keepends=True)
        return list(self._output)

    @property
    def ca_file(self) -> Optional[str]:
        """MiniLake's own certificate (``<data dir>/tls/cert.pem``): what gRPC (Databricks Connect's
        ``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH``) and, with ``MINILAKE_TLS=1``, https clients must trust. None
        until the server made one."""
        if self.container:
            if self._ca_copy and os.path.exists(self._ca_copy):
                return self._ca_copy
            dest = tempfile.mkdtemp(prefix="pytest-minilake-ca-")
            r = subprocess.run(["docker", "cp", f"{self.container}:/data/tls/cert.pem", dest],
                               capture_output=True, text=True)
            if r.returncode != 0:
                shutil.rmtree(dest, ignore_errors=True)
                return None
            self._ca_copy = os.path.join(dest, "cert.pem")
            return self._ca_copy
        if self.data_dir:
            p = os.path.join(self.data_dir, "tls", "cert.pem")
            return p if os.path.exists(p) else None
        return None

    # -- calls ---------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, timeout: float = 60) -> Tuple[int, Any]:
        """One call: ``(status, parsed JSON body or text)``; never raises for an HTTP status."""
        data = None
        headers = {"Authorization": f"Bearer {self.token}"}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self._ssl()) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        text = raw.decode("utf-8", "replace")
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, text

    def _ssl(self):
        if not self.url.startswith("https:"):
            return None
        import ssl

        ca = self.ca_file
        return ssl.create_default_context(cafile=ca) if ca else None

    def _admin(self, method: str, path: str, body: Any = None) -> Any:
        status, answer = self.request(method, path, body)
        if status != 200:
            # A 5xx is the server's own fault: what it logged says why, so the error carries it.
            why = f"\nThe server's output ends with:\n{_tail(self.output, 20)}" if status >= 500 else ""
            raise MiniLakeError(f"{method} {path}: {status} {answer}{why}")
        return answer

    def ready(self) -> bool:
        try:
            return self.request("GET", "/_minilake/ready", timeout=5)[0] == 200
        except OSError:
            return False

    def reset(self, services: Optional[Sequence[str]] = None) -> List[str]:
        """Everything back to a fresh server's state (``POST /_minilake/reset``); named snapshots stay."""
        q = f"?services={','.join(services)}" if services else ""
        return self._admin("POST", f"/_minilake/reset{q}")["reset"]

    def snapshot(self, name: str) -> Dict[str, Any]:
        """Saves the whole state as ``name`` (replacing an earlier snapshot of that name)."""
        if name in self.snapshots():
            self.delete_snapshot(name)
        return self._admin("POST", "/_minilake/snapshots", {"name": name})

    def restore(self, name: str) -> Dict[str, Any]:
        """Puts the whole state back as snapshot ``name`` left it."""
        return self._admin("POST", f"/_minilake/snapshots/{name}/restore")

    def delete_snapshot(self, name: str) -> None:
        self._admin("DELETE", f"/_minilake/snapshots/{name}")

    def snapshots(self) -> List[str]:
        return [s["name"] for s in self._admin("GET", "/_minilake/snapshots").get("snapshots", [])]

    # -- what clients read ---------------------------------------------------------------------------------

    def env(self) -> Dict[str, str]:
        """The environment a client of this server needs: the Databricks host and token (the SDKs, the CLI,
        Terraform, databricks-connect read them), and the Spark Connect address when the server has one."""
        e = {"DATABRICKS_HOST": self.url, "DATABRICKS_TOKEN": self.token, "MINILAKE_URL": self.url}
        if self.spark_connect_url:
            e["MINILAKE_SPARK_REMOTE"] = self.spark_connect_url
        ca = self.ca_file
        if ca:
            e["MINILAKE_CA_FILE"] = ca
        return e

    def workspace_client(self, **kw: Any):
        """A ``databricks.sdk.WorkspaceClient`` for this server that ignores ``~/.databrickscfg``."""
        from databricks.sdk import WorkspaceClient

        kw.setdefault("auth_type", "pat")
        return WorkspaceClient(host=self.url, token=self.token, config_file="/dev/null", **kw)

    # -- lifecycle -----------------------------------------------------------------------------------------

    def stop(self, keep_data: bool = False) -> None:
        """Stops a server this package started (SIGTERM, then SIGKILL after 15 s) and removes its data
        directory unless ``keep_data``. A server given by URL is left alone."""
        if self._stopped:
            return
        self._stopped = True
        _running.discard(self)
        if self._stopper:
            self._stopper(keep_data)
        if self._ca_copy:
            shutil.rmtree(os.path.dirname(self._ca_copy), ignore_errors=True)

    def kill(self) -> None:
        """SIGKILL, as a crash would; the data directory stays (start another server on it)."""
        if self.proc is not None:
            _signal_group(self.proc, signal.SIGKILL)
            self.proc.wait(15)
        elif self.container:
            subprocess.run(["docker", "kill", self.container], capture_output=True)
        self._stopped = True
        _running.discard(self)


_running: "set[MiniLake]" = set()


@atexit.register
def _stop_all() -> None:  # a crashed or interrupted session must not leave servers behind
    for s in list(_running):
        try:
            s.stop()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(lines: Sequence[str], n: int = 30) -> str:
    t = "".join(list(lines)[-n:]).rstrip()
    return t or "(no output)"


# -- sources ---------------------------------------------------------------------------------------------


def command_for(bin: str) -> List[str]:
    """The command line that runs ``bin``: node for a JavaScript file, npx for a packed tarball, the file
    itself otherwise."""
    path = os.path.abspath(os.path.expanduser(bin))
    if not os.path.exists(path):
        if os.sep not in bin and shutil.which(bin):
            return [shutil.which(bin)]  # a name on PATH (`minilake` installed with npm -g)
        raise MiniLakeStartError(f"--minilake-bin {bin}: no such file")
    if path.endswith((".tgz", ".tar.gz")):
        return _npx(path)
    if os.path.isdir(path):  # a package folder: its package.json's bin
        with open(os.path.join(path, "package.json")) as f:
            b = json.load(f).get("bin")
        b = b if isinstance(b, str) else (b or {}).get("minilake")
        if not b:
            raise MiniLakeStartError(f"--minilake-bin {bin}: package.json names no minilake bin")
        return _node(os.path.join(path, b))
    if path.endswith((".js", ".mjs", ".cjs")):
        return _node(path)
    return [path]


def _node(script: str) -> List[str]:
    node = shutil.which("node")
    if not node:
        raise MiniLakeStartError(f"{script} is a JavaScript file and there is no node on PATH (Node 20 or newer)")
    return [node, script]


def _npx(spec: str) -> List[str]:
    npx = shutil.which("npx")
    if not npx:
        raise MiniLakeStartError(f"running {spec} needs npx (Node 20 or newer with npm) on PATH")
    # --package + the bin's name: the package's bin is called `minilake`, not after the package.
    return [npx, "--yes", "--package", spec, "minilake"]


def start(*, url: Optional[str] = None, bin: Optional[str] = None, image: Optional[str] = None,
          npm: Optional[str] = None, env: Optional[Mapping[str, str]] = None, data_dir: Optional[str] = None,
          token: Optional[str] = None, timeout: float = 180, docker_network: str = "auto",
          name: Optional[str] = None) -> MiniLake:
    """Starts (or, with ``url``, connects to) a MiniLake server and waits until it is ready.

    ``env`` adds ``MINILAKE_*`` settings for the server; ``data_dir`` keeps its data in a folder of yours
    (kept on stop), otherwise a fresh temporary one is made and removed on stop."""
    token = token or DEFAULT_TOKEN
    if url:
        s = MiniLake(url, token=token, kind="url", describe=f"the server at {url}")
        deadline = time.monotonic() + timeout
        while not s.ready():
            if time.monotonic() > deadline:
                raise MiniLakeStartError(f"the MiniLake at {url} did not answer /_minilake/ready with 200 "
                                         f"within {timeout:.0f} s")
            time.sleep(0.2)
        return s
    if bin:
        return _start_process(command_for(bin), f"--minilake-bin {bin}", env, data_dir, token, timeout)
    if image:
        return _start_container(image, env, token, timeout, docker_network, name)
    if npm:
        return _start_process(_npx(npm), f"the npm package {npm}", env, data_dir, token, timeout)
    found = shutil.which("minilake")
    if found:
        return _start_process([found], f"{found} (minilake on PATH)", env, data_dir, token, timeout)
    raise MiniLakeStartError(
        "pytest-minilake does not know which MiniLake to start: give --minilake-bin PATH (a built bin such as "
        "apps/server/dist/cli.js, or a packed @minilake/server tarball), --minilake-image IMAGE (a Docker "
        "image such as minilake:local), --minilake-npm [SPEC] (the npm package), or --minilake-url URL (a "
        "server that already runs); the same as ini options (minilake_bin, ...) or environment variables "
        "(PYTEST_MINILAKE_BIN, ...). No `minilake` is on PATH either.")


def _start_process(cmd: List[str], what: str, env: Optional[Mapping[str, str]], data_dir: Optional[str],
                   token: str, timeout: float) -> MiniLake:
    own_dir = data_dir is None
    data = data_dir or tempfile.mkdtemp(prefix="pytest-minilake-")
    full_env = dict(os.environ)
    # What points clients at another server (the session's, or one the GitHub Action started) is not this
    # server's business: its tasks get their own host and token from it.
    for k in CLIENT_ENV + ("MINILAKE_PORT", "MINILAKE_DATA_DIR"):
        full_env.pop(k, None)
    full_env.update({"MINILAKE_DATA_DIR": data, "MINILAKE_SPARK_CONNECT_PORT": "0"})
    full_env.update(env or {})
    output: Deque[str] = collections.deque(maxlen=_OUTPUT_LINES)
    try:
        proc = subprocess.Popen(cmd + ["--port", "0"], env=full_env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)  # its own group: stop reaches npx's children too
    except OSError as e:
        if own_dir:
            shutil.rmtree(data, ignore_errors=True)
        raise MiniLakeStartError(f"MiniLake from {what} could not be started: {e}") from e
    found: Dict[str, str] = {}

    def pump() -> None:
        assert proc.stdout is not None
        after = 0  # lines since the listening line: the address lines (Spark Connect) come right after it
        for line in proc.stdout:
            output.append(line)
            if "url" not in found:
                m = LISTENING.search(line)
                if m:
                    found["url"] = m.group(1)
            if "url" in found and after < 12:
                after += 1
                c = SPARK_CONNECT.search(line)
                if c and "sc" not in found and c.group(2) != "0":
                    found["sc"] = f"sc://{c.group(1)}:{c.group(2)}"

    threading.Thread(target=pump, daemon=True, name="minilake-output").start()

    def stopper(keep_data: bool) -> None:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(15)
        if own_dir and not keep_data:
            shutil.rmtree(data, ignore_errors=True)

    def failed(reason: str) -> MiniLakeStartError:
        stopper(False)
        return MiniLakeStartError(f"MiniLake from {what} {reason}.\nCommand: {' '.join(cmd)} --port 0\n"
                                  f"Its output:\n{_tail(output)}")

    deadline = time.monotonic() + timeout
    while "url" not in found:
        if proc.poll() is not None:
            time.sleep(0.1)  # the pump's last lines
            raise failed(f"exited with code {proc.returncode} before it listened")
        if time.monotonic() > deadline:
            raise failed(f"did not listen within {timeout:.0f} s")
        time.sleep(0.05)
    server = MiniLake(found["url"], token=token, kind="process", data_dir=data, proc=proc, output=output,
                      stopper=stopper, describe=what)
    while not server.ready():
        if proc.poll() is not None:
            raise failed(f"exited with code {proc.returncode} before it was ready")
        if time.monotonic() > deadline:
            raise failed(f"listened on {found['url']} but /_minilake/ready did not answer 200 within {timeout:.0f} s")
        time.sleep(0.1)
    # Printed with the listening line, long read by now.
    server.spark_connect_url = found.get("sc")
    _running.add(server)
    return server


def _docker(*args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    r = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise MiniLakeStartError(f"docker {' '.join(args[:2])}: {(r.stderr or r.stdout).strip()}")
    return r


def _start_container(image: str, env: Optional[Mapping[str, str]], token: str, timeout: float,
                     network: str, name: Optional[str]) -> MiniLake:
    if not shutil.which("docker"):
        raise MiniLakeStartError(f"--minilake-image {image} needs the docker client on PATH")
    info = _docker("version", "-f", "{{.Server.Version}}", check=False, timeout=30)
    if info.returncode != 0:
        raise MiniLakeStartError(f"--minilake-image {image}: no Docker daemon answers "
                                 f"({(info.stderr or info.stdout).strip()})")
    if _docker("image", "inspect", image, check=False).returncode != 0:
        raise MiniLakeStartError(f"--minilake-image {image}: no such image here (build it with "
                                 f"`bash docker/build.sh`, or docker pull it)")
    if network == "auto":
        # Daemons started with --bridge=none (MiniLake's development machines) have no bridge to publish
        # ports on: share the host's network there, on free ports.
        network = "bridge" if _docker("network", "inspect", "bridge", check=False).returncode == 0 else "host"
    name = name or f"pytest-minilake-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    args = ["run", "-d", "--name", name, "--label", "dev.minilake.pytest=1"]
    for k, v in (env or {}).items():
        args += ["-e", f"{k}={v}"]
    if network == "host":
        port, sc_port = free_port(), free_port()
        args += ["--network", "host", "-e", f"MINILAKE_PORT={port}", "-e", "MINILAKE_BIND_HOST=127.0.0.1",
                 "-e", f"MINILAKE_SPARK_CONNECT_PORT={sc_port}"]
    else:
        args += ["-p", "127.0.0.1::8000", "-p", "127.0.0.1::15002"]
        if network != "bridge":
            args += ["--network", network]
    r = _docker(*args, image, check=False)
    if r.returncode != 0:
        raise MiniLakeStartError(f"docker run {image}: {(r.stderr or r.stdout).strip()}")

    def stopper(_keep: bool) -> None:
        _docker("rm", "-f", "-v", name, check=False)

    def failed(reason: str) -> MiniLakeStartError:
        logs = _docker("logs", "--tail", "30", name, check=False)
        stopper(False)
        return MiniLakeStartError(f"MiniLake from the image {image} (container {name}) {reason}.\nIts output:\n"
                                  f"{(logs.stdout + logs.stderr).strip() or '(no output)'}")

    if network == "host":
        url, sc = f"http://127.0.0.1:{port}", f"sc://127.0.0.1:{sc_port}"
    else:
        def published(p: int) -> Optional[str]:
            out = _docker("port", name, f"{p}/tcp", check=False).stdout.strip().splitlines()
            return out[0].strip() if out else None

        http = published(8000)
        if not http:
            raise failed("published no port for 8000")
        url = f"http://{http}"
        spark = published(15002)
        sc = f"sc://{spark}" if spark else None
    server = MiniLake(url, token=token, kind="docker", container=name, spark_connect_url=sc, stopper=stopper,
                      describe=f"the image {image}")
    deadline = time.monotonic() + timeout
    while not server.ready():
        state = _docker("inspect", "-f", "{{.State.Running}} {{.State.ExitCode}}", name, check=False).stdout.split()
        if state and state[0] != "true":
            raise failed(f"exited with code {state[1] if len(state) > 1 else '?'} before it was ready")
        if time.monotonic() > deadline:
            raise failed(f"was not ready on {url} within {timeout:.0f} s")
        time.sleep(0.2)
    _running.add(server)
    return server
