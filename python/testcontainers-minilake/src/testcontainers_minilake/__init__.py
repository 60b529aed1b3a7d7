"""A testcontainers module for MiniLake (the Databricks API on your machine), in the style of the modules of
testcontainers-python::

    from testcontainers_minilake import MiniLakeContainer

    with MiniLakeContainer("minilake:local") as lake:
        w = lake.get_client()                     # a databricks.sdk.WorkspaceClient
        w.catalogs.create(name="sales")
        os.environ.update(lake.get_env())             # DATABRICKS_HOST / DATABRICKS_TOKEN for any other client

Readiness is ``GET /_minilake/ready`` answering 200 (every service started and the data dir checked), not a
log line. On a Docker daemon without a bridge network (started with ``--bridge=none``) the container shares the
host's network on a free port; elsewhere port 8000 is published on a random host port, as usual.
"""
from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Dict, Iterable, Optional

from testcontainers.core.container import DockerContainer

__all__ = ["MiniLakeContainer"]
__version__ = "0.1.0"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MiniLakeContainer(DockerContainer):
    """MiniLake in a container.

    Args:
        image: the MiniLake image (``minilake:local`` full, ``minilake:slim``; ``bash docker/build.sh``).
        token: the token clients send (MiniLake accepts any).
        services: the API groups to serve (``MINILAKE_SERVICES``), all when None.
        persist: keep state in the container's ``/data`` across restarts (``MINILAKE_PERSIST=1``).
        network_mode: ``"host"``, ``"bridge"``, or None to choose: the bridge with a published port when the
            daemon has one, the host's network otherwise.
        startup_timeout: seconds to wait for ``/_minilake/ready``.
    """

    PORT = 8000

    def __init__(self, image: str = "minilake:local", token: str = "dapi-minilake",
                 services: Optional[Iterable[str]] = None, persist: bool = False,
                 network_mode: Optional[str] = None, startup_timeout: float = 120, **kwargs: Any) -> None:
        super().__init__(image, **kwargs)
        self.token = token
        self.startup_timeout = startup_timeout
        self._network_mode = network_mode
        self._host_port: Optional[int] = None
        if services:
            self.with_env("MINILAKE_SERVICES", ",".join(services))
        if persist:
            self.with_env("MINILAKE_PERSIST", "1")

    def _configure(self) -> None:
        mode = self._network_mode
        if mode is None:
            client = self.get_docker_client().client
            mode = "bridge" if client.networks.list(names=["bridge"]) else "host"
        if mode == "host":
            self._host_port = _free_port()
            self.with_kwargs(network_mode="host")
            self.with_env("MINILAKE_PORT", str(self._host_port))
            self.with_env("MINILAKE_BIND_HOST", "127.0.0.1")
            # Spark Connect on a free port too, so two containers never compete for 15002.
            self.with_env("MINILAKE_SPARK_CONNECT_PORT", str(_free_port()))
        else:
            self._host_port = None
            self.with_exposed_ports(self.PORT)
        super()._configure()

    def start(self) -> "MiniLakeContainer":
        super().start()
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last = ""
        while True:
            self.get_wrapped_container().reload()
            status = self.get_wrapped_container().status
            if status in ("exited", "dead"):
                out, err = self.get_logs()
                raise RuntimeError(f"MiniLake's container {status} before it was ready:\n"
                                   f"{(out + err).decode(errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(self.get_url() + "/_minilake/ready", timeout=5) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError, ValueError) as e:
                last = str(e)
            if time.monotonic() > deadline:
                out, err = self.get_logs()
                raise TimeoutError(f"MiniLake was not ready within {self.startup_timeout:.0f} s ({last}):\n"
                                   f"{(out + err).decode(errors='replace')[-3000:]}")
            time.sleep(0.2)

    def get_url(self) -> str:
        """MiniLake's URL as seen from the tests (what DATABRICKS_HOST is set to)."""
        if self._host_port:
            return f"http://127.0.0.1:{self._host_port}"
        return f"http://{self.get_container_host_ip()}:{self.get_exposed_port(self.PORT)}"

    def get_env(self) -> Dict[str, str]:
        """The environment the Databricks SDKs, the CLI, Terraform and dbt read to find this server."""
        return {"DATABRICKS_HOST": self.get_url(), "DATABRICKS_TOKEN": self.token}

    def get_client(self, **kwargs: Any):
        """A ``databricks.sdk.WorkspaceClient`` for this server (``pip install databricks-sdk``), with a PAT and
        no ``~/.databrickscfg``."""
        from databricks.sdk import WorkspaceClient

        kwargs.setdefault("auth_type", "pat")
        kwargs.setdefault("config_file", "/dev/null")
        return WorkspaceClient(host=self.get_url(), token=self.token, **kwargs)

    # -- MiniLake's admin API ------------------------------------------------------------------------------

    def _admin(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.get_url() + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            text = r.read().decode()
        return json.loads(text) if text else None

    def reset(self) -> None:
        """Everything back to a fresh server's state (named snapshots stay)."""
        self._admin("POST", "/_minilake/reset")

    def snapshot(self, name: str) -> None:
        """Saves the whole state as ``name``."""
        self._admin("POST", "/_minilake/snapshots", {"name": name})

    def restore(self, name: str) -> None:
        """Puts the state back as snapshot ``name`` left it."""
        self._admin("POST", f"/_minilake/snapshots/{name}/restore")
