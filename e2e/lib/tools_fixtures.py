"""Fixtures for the suites that drive the real Databricks CLI and Terraform: where the tools are (set by
e2e/tools/run.sh, which builds them once), a fresh server per module, and each tool run in a fresh HOME so the
CLI's cache of /Me and host metadata never leaks between tests."""
import json
import os
import subprocess
import tempfile

import pytest
import requests
from databricks.sdk import WorkspaceClient
from databricks.sdk.service import jobs
from databricks.sdk.service.sql import StatementState

from minilake import Server, unique

TOKEN = "dapi-minilake-e2e"


def tool(var):
    path = os.environ.get(var)
    if not path or not os.path.exists(path):
        raise RuntimeError(f"{var} is not set to a built tool: run these suites through e2e/tools/run.sh")
    return path


class Api:
    """Plain REST calls for checks the tools cannot make themselves."""

    def __init__(self, url):
        self.url = url
        self.s = requests.Session()
        self.s.headers["Authorization"] = f"Bearer {TOKEN}"

    def get(self, path, params=None):
        return self.s.get(self.url + path, params=params, timeout=30)

    def post(self, path, body=None):
        return self.s.post(self.url + path, json=body or {}, timeout=60)


FAST = {"MINILAKE_CLUSTER_START_DELAY": "0.2", "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2",
        "MINILAKE_WAREHOUSE_START_DELAY": "0.2"}
# Identities checked and permissions enforced (issue 30); TOKEN is the bootstrap admin's token, so the `api`,
# `w`, `cli` and `terraform_factory` fixtures act as a workspace admin unchanged.
ENFORCED = {"MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1", "MINILAKE_ADMIN_TOKEN": TOKEN}


def server_fixture(env=None):
    """A module-scoped `server` fixture with extra server environment; a test module overrides the default one
    with `server = server_fixture(ENFORCED)`."""

    @pytest.fixture(scope="module", name="server")
    def _server():
        s = Server(env={**FAST, **(env or {})})
        yield s
        s.stop()

    return _server


server = server_fixture()


@pytest.fixture
def api(server):
    return Api(server.url)


@pytest.fixture
def w(server):
    return WorkspaceClient(host=server.url, token=TOKEN, auth_type="pat", config_file="/dev/null")


def tool_env(server, home, extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "TF_", "ARM_", "AWS_"))}
    env.update(HOME=home, DATABRICKS_HOST=server.url, DATABRICKS_TOKEN=TOKEN, CHECKPOINT_DISABLE="1",
               TF_IN_AUTOMATION="1", TF_CLI_CONFIG_FILE=tool("MINILAKE_TFRC"), NO_COLOR="1")
    for k, v in (extra or {}).items():  # None removes a variable (e.g. DATABRICKS_TOKEN for OAuth M2M)
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def admin_objects(server, prefix):
    """What the admin owns in the enforced suites, made through the Python SDK: catalog <prefix>_... with table
    s.t (id, v) holding one row, a job of one condition task, a secret scope with key k; returns their names
    and the admin's client."""
    w = WorkspaceClient(host=server.url, token=TOKEN, auth_type="pat", config_file="/dev/null")
    wh = w.warehouses.create(name=unique(prefix), cluster_size="2X-Small", max_num_clusters=1).result().id
    cat = unique(prefix)
    w.catalogs.create(name=cat)
    w.schemas.create(name="s", catalog_name=cat)
    for s in (f"CREATE TABLE {cat}.s.t (id BIGINT, v STRING)", f"INSERT INTO {cat}.s.t VALUES (1, 'a')"):
        r = w.statement_execution.execute_statement(warehouse_id=wh, statement=s, wait_timeout="30s")
        assert r.status.state == StatementState.SUCCEEDED, r.status
    job_name = unique(f"{prefix}_job")
    job = w.jobs.create(name=job_name, tasks=[jobs.Task(task_key="c", condition_task=jobs.ConditionTask(
        op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1"))]).job_id
    scope = unique(f"{prefix}_scope")
    w.secrets.create_scope(scope=scope)
    w.secrets.put_secret(scope=scope, key="k", string_value="s3cr3t")
    return {"w": w, "cat": cat, "job": job, "job_name": job_name, "scope": scope}


class ServicePrincipal:
    """A second identity for the enforced suites, made by the admin: a service principal created through SCIM,
    a personal access token for it from token management's on-behalf-of API (Databricks mints none for another
    user) and an OAuth secret from the service principal secrets API. `pat_env` and `m2m_env` are the tools'
    environments for each way of authenticating, as CI pipelines set them."""

    def __init__(self, w, display_name):
        sp = w.service_principals.create(display_name=display_name)
        self.id, self.application_id = sp.id, sp.application_id
        self.token = w.token_management.create_obo_token(application_id=sp.application_id,
                                                         lifetime_seconds=3600).token_value
        self.secret = w.service_principal_secrets_proxy.create(service_principal_id=sp.id).secret
        self.pat_env = {"DATABRICKS_TOKEN": self.token}
        self.m2m_env = {"DATABRICKS_TOKEN": None, "DATABRICKS_CLIENT_ID": self.application_id,
                        "DATABRICKS_CLIENT_SECRET": self.secret}


class Cli:
    """The real Databricks CLI, one fresh HOME per test."""

    def __init__(self, server, home, env=None):
        self.server, self.home, self.exe = server, home, tool("MINILAKE_DATABRICKS_CLI")
        self.env = env or {}  # applied to every run: another identity (ServicePrincipal.m2m_env)

    def as_identity(self, env):
        """The same CLI run as another identity, with a HOME of its own (the CLI caches OAuth tokens there)."""
        home = tempfile.mkdtemp(dir=self.home)
        return Cli(self.server, home, {**self.env, **env})

    def run(self, *args, cwd=None, env=None, check=True, timeout=600, input=None):
        env = tool_env(self.server, self.home, {**self.env, **(env or {})})
        p = subprocess.run([self.exe, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                           input=input)
        if check and p.returncode != 0:
            raise AssertionError(f"databricks {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
        return p

    def json(self, *args, **kw):
        out = self.run(*args, "-o", "json", **kw).stdout
        return json.loads(out) if out.strip() else None


@pytest.fixture
def cli(server, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return Cli(server, str(home))


class Terraform:
    """The real Terraform with the Databricks provider from the local filesystem mirror."""

    def __init__(self, server, workdir, home, env=None):
        self.server, self.dir, self.home = server, workdir, home
        self.exe = tool("MINILAKE_TERRAFORM")
        self.env = env or {}  # applied to every run: another identity (ServicePrincipal.m2m_env)

    def run(self, *args, check=True, timeout=900, env=None):
        p = subprocess.run([self.exe, *args, "-no-color"], cwd=self.dir,
                           env=tool_env(self.server, self.home, {**self.env, **(env or {})}),
                           capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError(f"terraform {' '.join(args)} exited {p.returncode}:\n{p.stdout[-4000:]}\n{p.stderr}")
        return p

    def init(self):
        return self.run("init", "-input=false")

    def apply(self):
        return self.run("apply", "-auto-approve", "-input=false")

    def plan_exit(self):
        """0: no changes, 2: changes (terraform plan -detailed-exitcode), with the plan text."""
        p = self.run("plan", "-detailed-exitcode", "-input=false", check=False)
        if p.returncode not in (0, 2):
            raise AssertionError(f"terraform plan failed:\n{p.stdout[-4000:]}\n{p.stderr}")
        return p.returncode, p.stdout

    def destroy(self):
        return self.run("destroy", "-auto-approve", "-input=false")


@pytest.fixture
def terraform_factory(server, tmp_path):
    def make(files, env=None):
        d = tempfile.mkdtemp(dir=tmp_path)
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        home = os.path.join(d, ".home")
        os.mkdir(home)
        return Terraform(server, d, home, env)

    return make
