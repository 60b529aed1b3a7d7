"""Issue 30, robustness: no secret value in anything the server wrote.

A persistent server of the test's own (MINILAKE_AUTH=tokens) is given secrets the way users give them (a secret
scope's string and bytes values, a personal access token, a service principal's OAuth secret and the access
token it is exchanged for), and they are used the way users use them: a job task reads a secret with
`dbutils.secrets.get` and prints it, sees others through `{{secrets/...}}` in its cluster's `spark_env_vars` and
`spark_conf`, the run's output is read back, statements run under the token and query history is listed, a
revoked token and a wrong value are refused. Then a snapshot, a clean stop, a restart and a `kill -9` (so
journals stay as a crash leaves them), and every file under the data directory plus the server's whole output
is searched for each value, raw and base64-encoded. Databricks redacts a printed secret as `[REDACTED]`.

`SELECT secret('scope', 'key')` is not part of MiniLake's SQL dialect, so statements carry no secret here.
The Spark part runs when the Spark install is present (`bash packages/engine-spark/install.sh`) and is left
out, with a warning, when it is not."""
import base64
import os
import re
import shutil
import secrets as pysecrets
import time
import warnings
from datetime import timedelta

import pytest
import requests
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import NotFound, Unauthenticated
from databricks.sdk.service import compute, jobs
from databricks.sdk.service.workspace import ImportFormat

from conftest import Server, unique

# Spark redacts conf keys that look secret (spark.redaction.regex: secret|password|token|access.key) in what
# it writes; an Azure account key's conf name matches none of them, so only MiniLake stands between it and disk.
CONF_KEY = "spark.hadoop.fs.azure.account.key.minilakescan.dfs.core.windows.net"

SCRIPT = f"""
import os, sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
scope = sys.argv[1]
print("dbutils=" + dbutils.secrets.get(scope, "password"))
print("env=" + os.environ["MY_SECRET"])
print("conf=" + spark.conf.get("{CONF_KEY}"))
# The run's own token, reversed so the output never holds it: the test scans for it too.
print("runtoken=" + os.environ["DATABRICKS_TOKEN"][::-1])
print("rows=%d" % spark.range(3).count())
"""


def _value(prefix):
    """A high-entropy value no file would hold by chance."""
    return f"{prefix}-{pysecrets.token_urlsafe(30)}"


def _forms(raw: bytes):
    """The byte strings that would betray `raw`: itself and its base64, standard and URL-safe, also where it sits
    inside a longer encoded text (at each of the three byte alignments, the groups only its bytes decide)."""
    out = {raw}
    for enc in (base64.b64encode, base64.urlsafe_b64encode):
        out.add(enc(raw))
        for k in range(3):
            b = enc(b"\0" * k + raw)
            whole = (k + len(raw)) // 3  # groups of 3 bytes fully inside the text
            out.add(b[(4 if k else 0): whole * 4])
    return {f for f in out if len(f) >= 16}


def _scan(paths, secrets):
    """Every (secret name, file) pair where a form of the secret occurs in the file."""
    found = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except (IsADirectoryError, FileNotFoundError, PermissionError):
            continue
        for name, raw in secrets.items():
            if any(form in data for form in _forms(raw)):
                found.append((name, path))
    return found


def _files(root):
    for d, _dirs, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                yield p


def _save_output(server, log, stage):
    lines = server.output
    # The launcher keeps the last 2,000 lines: fewer means the log file holds all of them.
    assert len(lines) < 2000, f"the server's output was cut at {stage}: the scan would miss its start"
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"--- {stage}\n")
        f.writelines(lines)


def _run_spark_job(w, home, scope, secrets):
    """The job part; returns False when the Spark engine is not installed here."""
    path = f"{home}/leak.py"
    w.workspace.upload(path, SCRIPT.encode(), format=ImportFormat.AUTO, overwrite=True)
    cluster = compute.ClusterSpec(
        spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge", num_workers=0,
        spark_env_vars={"MY_SECRET": f"{{{{secrets/{scope}/env}}}}"},
        spark_conf={CONF_KEY: f"{{{{secrets/{scope}/conf}}}}"},
    )
    created = w.jobs.create(name=unique("scan"), tasks=[jobs.Task(
        task_key="leak", new_cluster=cluster,
        spark_python_task=jobs.SparkPythonTask(python_file=path, parameters=[scope]))])
    run = w.jobs.run_now_and_wait(created.job_id, timeout=timedelta(seconds=150))
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    if run.state.result_state != jobs.RunResultState.SUCCESS:
        if "engine is not available" in (out.error or "") or "not part of this build" in (out.error or ""):
            return False
        pytest.fail(f"the task failed: {out.error}\n{out.logs}")
    logs = out.logs or ""
    for label in ("dbutils", "env", "conf"):
        assert f"{label}=[REDACTED]" in logs, logs
    assert "rows=3" in logs, logs
    line = next(line for line in logs.splitlines() if line.startswith("runtoken="))
    secrets["run token"] = line[len("runtoken="):][::-1].encode()
    # The run's own token, not the user's.
    assert secrets["run token"] and secrets["run token"] != secrets["PAT"]
    return True


def test_nothing_the_server_wrote_holds_a_secret(tmp_path):
    data, log = str(tmp_path / "data"), str(tmp_path / "server.log")
    admin_token = _value("admin")
    env = {"MINILAKE_PERSIST": "1", "MINILAKE_AUTH": "tokens", "MINILAKE_ADMIN_TOKEN": admin_token,
           "MINILAKE_LOG_LEVEL": "debug", "MINILAKE_CLUSTER_START_DELAY": "0.2",
           "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2", "MINILAKE_WAREHOUSE_START_DELAY": "0.2"}
    # Values only this test knows. The admin token is configuration (the server holds it from its
    # environment) but must not be written down either.
    secrets = {
        "admin token": admin_token.encode(),
        "string secret": _value("pw").encode(),
        "env secret": _value("env").encode(),
        "conf secret": _value("conf").encode(),
        # Bytes that are not UTF-8: stored and written as bytes, never as text.
        "bytes secret": b"\xff\xfe" + pysecrets.token_bytes(30),
        "put-to-missing-scope value": _value("lost").encode(),
    }
    server = Server(env=env, data_dir=data)
    try:
        host = server.url
        w = WorkspaceClient(host=host, token=admin_token, auth_type="pat")
        me = w.current_user.me().user_name

        scope = unique("scan")
        w.secrets.create_scope(scope=scope)
        w.secrets.put_secret(scope=scope, key="password", string_value=secrets["string secret"].decode())
        w.secrets.put_secret(scope=scope, key="env", string_value=secrets["env secret"].decode())
        w.secrets.put_secret(scope=scope, key="conf", string_value=secrets["conf secret"].decode())
        w.secrets.put_secret(scope=scope, key="blob",
                             bytes_value=base64.b64encode(secrets["bytes secret"]).decode())
        assert base64.b64decode(w.secrets.get_secret(scope=scope, key="blob").value) == secrets["bytes secret"]
        with pytest.raises(NotFound):
            w.secrets.put_secret(scope=unique("nope"), key="k",
                                 string_value=secrets["put-to-missing-scope value"].decode())

        # A personal access token, used; a second one revoked and then tried.
        pat = w.tokens.create(comment="scan", lifetime_seconds=3600)
        secrets["PAT"] = pat.token_value.encode()
        user = WorkspaceClient(host=host, token=pat.token_value, auth_type="pat")
        assert user.current_user.me().user_name == me
        gone = w.tokens.create(comment="scan-revoked", lifetime_seconds=3600)
        secrets["revoked PAT"] = gone.token_value.encode()
        w.tokens.delete(token_id=gone.token_info.token_id)
        with pytest.raises(Unauthenticated):
            WorkspaceClient(host=host, token=gone.token_value, auth_type="pat").current_user.me()

        # A service principal's OAuth secret, exchanged for an access token (and a wrong one refused).
        sp = w.service_principals.create(display_name=unique("scanbot"))
        oauth = w.service_principal_secrets_proxy.create(service_principal_id=sp.id)
        secrets["OAuth secret"] = oauth.secret.encode()
        m2m = WorkspaceClient(host=host, client_id=sp.application_id, client_secret=oauth.secret,
                              auth_type="oauth-m2m")
        assert m2m.current_user.me().user_name == sp.application_id
        bearer = m2m.config.authenticate()["Authorization"]
        secrets["OAuth access token"] = bearer.split(" ", 1)[1].encode()
        wrong = _value("wrong")
        secrets["wrong OAuth secret"] = wrong.encode()
        r = requests.post(f"{host}/oidc/v1/token", auth=(sp.application_id, wrong),
                          data={"grant_type": "client_credentials", "scope": "all-apis"})
        assert r.status_code == 401, r.text

        # Statements under the PAT and the OAuth token, then query history (which names their users).
        for client in (user, m2m):
            st = client.statement_execution.execute_statement(statement="SELECT 1 AS one", warehouse_id="dev",
                                                              wait_timeout="30s")
            assert st.status.state.value == "SUCCEEDED", st.status
        assert list(w.query_history.list(max_results=10).res or [])

        home = f"/Users/{me}/{unique('scan')}"
        w.workspace.mkdirs(home)
        ran_spark = _run_spark_job(w, home, scope, secrets)
        if not ran_spark:
            warnings.warn("the Spark engine is not installed here: the job part of the scan did not run "
                          "(bash packages/engine-spark/install.sh)")

        # A snapshot, a clean stop, a restart on the same data (the values still work), then a crash.
        r = requests.post(f"{host}/_minilake/snapshots", json={"name": "scan"},
                          headers={"Authorization": f"Bearer {admin_token}"})
        assert r.status_code == 200, r.text
        # The journal as it stands (a clean stop folds it into state/snapshot.json): every acknowledged write
        # is in it already.
        shutil.copy(os.path.join(data, "state", "journal.jsonl"), tmp_path / "journal-before-stop.jsonl")
        server.stop(keep_data=True)
        _save_output(server, log, "first run")
        server = Server(env=env, data_dir=data)
        w = WorkspaceClient(host=server.url, token=admin_token, auth_type="pat")
        got = w.secrets.get_secret(scope=scope, key="password").value
        assert base64.b64decode(got) == secrets["string secret"]
        assert WorkspaceClient(host=server.url, token=pat.token_value, auth_type="pat").current_user.me()
        w.secrets.put_secret(scope=scope, key="after-restart", string_value=secrets["string secret"].decode())
        server.kill9()
        time.sleep(0.2)  # the output pump's last lines
        _save_output(server, log, "after restart, killed")
    finally:
        server.stop(keep_data=True)

    files = list(_files(data)) + [log, str(tmp_path / "journal-before-stop.jsonl")]
    assert len(files) > 5, files
    leaks = _scan(files, secrets)
    # Tokens the server minted itself (a run's, the host's own for its Spark processes) have a shape: none in a
    # file either, whatever its value.
    minted = re.compile(rb"dapi[0-9a-f]{32}")
    leaks += [("a token the server minted", p) for p in files if minted.search(open(p, "rb").read())]
    assert not leaks, "secret values found in what the server wrote:\n" + "\n".join(
        f"  {name}: {os.path.relpath(path, str(tmp_path))}" for name, path in leaks)
    # The scan does find a value where one is: its own check.
    probe = tmp_path / "probe.bin"
    probe.write_bytes(b"x" + base64.b64encode(secrets["bytes secret"]) + b"y")
    assert _scan([str(probe)], secrets) == [("bytes secret", str(probe))]
