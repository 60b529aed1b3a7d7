"""Issue 30 through Databricks Connect (MINILAKE_AUTH=tokens, MINILAKE_ENFORCE=1): the bootstrap admin makes a
cluster and a table; a service principal with an on-behalf-of token is refused the cluster without
CAN_ATTACH_TO and attaches once granted it; inside its Spark session Unity Catalog acts as the service
principal, so reading the table without SELECT fails as on Databricks (INSUFFICIENT_PERMISSIONS), and the
same live session reads it once the admin grants SELECT (and is still refused a write, MODIFY). Code run on
the same cluster by /api/1.2 command execution and by a job task (existing_cluster_id) reads Unity Catalog as
the context's creator and the run's identity (run_as), the same way, and a context's reads and writes of a
volume's files by path need READ VOLUME / WRITE VOLUME of its creator."""
import io
import json
import os
import subprocess
import tempfile

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import PermissionDenied, Unauthenticated
from databricks.sdk.service import catalog, compute, jobs
from databricks.sdk.service import workspace as ws

from conftest import Server, client_python, sql, unique

ADMIN = "e2e-connect-trust-admin"
HERE = os.path.dirname(__file__)


@pytest.fixture(scope="module")
def enforced():
    s = Server(env={"MINILAKE_CLUSTER_RUNTIME": "spark", "MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1",
                    "MINILAKE_ADMIN_TOKEN": ADMIN, "MINILAKE_CLUSTER_START_DELAY": "0.2",
                    "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2", "MINILAKE_WAREHOUSE_START_DELAY": "0.2"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def admin(enforced):
    os.environ["DATABRICKS_CONFIG_FILE"] = "/dev/null"
    return WorkspaceClient(host=enforced.url, token=ADMIN, auth_type="pat")


@pytest.fixture(scope="module")
def cluster_id(admin):
    """One all-purpose cluster for the module (its Spark driver started once)."""
    return admin.clusters.create_and_wait(cluster_name=unique("trust"), spark_version="16.4.x-scala2.12",
                                          node_type_id="i3.xlarge", num_workers=0).cluster_id


class Client:
    """trust_client.py in the client's own venv, one step at a time (a session stays open between steps)."""

    def __init__(self, server, token, cluster_id, table):
        full = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "SPARK_", "PYSPARK_"))}
        full.update({"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": os.path.join(server.data_dir, "tls", "cert.pem"),
                     "HOST": server.url, "TOKEN": token, "CLUSTER_ID": cluster_id, "TABLE": table,
                     "DATABRICKS_CONFIG_FILE": "/dev/null"})
        self.p = subprocess.Popen([client_python("16.1"), os.path.join(HERE, "trust_client.py")], env=full,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def step(self, name):
        self.p.stdin.write(name + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise AssertionError(f"the client died at {name}: {self.p.stderr.read()[-3000:]}")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def test_second_identity_through_databricks_connect(enforced, admin, cluster_id):
    # The admin's cluster and table (an EXTERNAL Delta table the SQL warehouse made).
    for stmt in ("CREATE CATALOG IF NOT EXISTS main", "CREATE SCHEMA IF NOT EXISTS main.s"):
        sql(admin, stmt)
    loc = tempfile.mkdtemp(prefix="minilake-connect-trust-")
    sql(admin, f"CREATE TABLE main.s.t (x INT) USING DELTA LOCATION '{loc}/t'")
    sql(admin, "INSERT INTO main.s.t VALUES (1), (2)")

    # The second identity: a service principal with an on-behalf-of token.
    sp = admin.service_principals.create(display_name=unique("connect-bot"))
    token = admin.token_management.create_obo_token(application_id=sp.application_id,
                                                    lifetime_seconds=3600).token_value
    app = sp.application_id

    # No CAN_ATTACH_TO: Databricks Connect is refused the cluster.
    c = Client(enforced, token, cluster_id, "main.s.t")
    try:
        r = c.step("session")
        assert not r["ok"] and "PERMISSION_DENIED" in r["error"], r
    finally:
        c.close()

    # CAN_ATTACH_TO (and USE CATALOG / USE SCHEMA): it attaches, but reads the table as itself, without SELECT.
    admin.clusters.update_permissions(cluster_id, access_control_list=[compute.ClusterAccessControlRequest(
        service_principal_name=app, permission_level=compute.ClusterPermissionLevel.CAN_ATTACH_TO)])
    sql(admin, f"GRANT USE CATALOG ON CATALOG main TO `{app}`")
    sql(admin, f"GRANT USE SCHEMA ON SCHEMA main.s TO `{app}`")
    c = Client(enforced, token, cluster_id, "main.s.t")
    try:
        r = c.step("session")
        assert r["ok"] and r["value"] == 42, r
        r = c.step("read")
        assert not r["ok"], r
        assert "INSUFFICIENT_PERMISSIONS" in r["error"], r
        assert "User does not have SELECT on Table 'main.s.t'" in r["error"], r

        # SELECT granted: the same session reads it; a write still needs MODIFY.
        sql(admin, f"GRANT SELECT ON TABLE main.s.t TO `{app}`")
        r = c.step("read")
        assert r["ok"] and r["value"] == [1, 2], r
        r = c.step("write")
        assert not r["ok"] and "INSUFFICIENT_PERMISSIONS" in r["error"] and "MODIFY" in r["error"], r
    finally:
        c.close()

    # The admin's own session on the same cluster is not the service principal's: it reads and writes.
    c = Client(enforced, ADMIN, cluster_id, "main.s.t")
    try:
        assert c.step("session")["ok"]
        r = c.step("write")
        assert r["ok"], r
        assert c.step("read")["value"] == [1, 2, 9]
    finally:
        c.close()


def _principal(admin, cluster_id):
    """A service principal with an on-behalf-of token, allowed to attach to the cluster and to use main.x."""
    sp = admin.service_principals.create(display_name=unique("exec-bot"))
    token = admin.token_management.create_obo_token(application_id=sp.application_id,
                                                    lifetime_seconds=3600).token_value
    admin.clusters.update_permissions(cluster_id, access_control_list=[compute.ClusterAccessControlRequest(
        service_principal_name=sp.application_id, permission_level=compute.ClusterPermissionLevel.CAN_ATTACH_TO)])
    sql(admin, f"GRANT USE CATALOG ON CATALOG main TO `{sp.application_id}`")
    sql(admin, f"GRANT USE SCHEMA ON SCHEMA main.x TO `{sp.application_id}`")
    return sp.application_id, token


def test_code_on_a_cluster_reads_as_its_identity(enforced, admin, cluster_id):
    """Two identities on one cluster, one table granted to one of them: command execution and a job task on
    the existing cluster read it as their own identity (the context's creator, the run's run_as)."""
    for stmt in ("CREATE CATALOG IF NOT EXISTS main", "CREATE SCHEMA IF NOT EXISTS main.x"):
        sql(admin, stmt)
    loc = tempfile.mkdtemp(prefix="minilake-exec-trust-")
    sql(admin, f"CREATE TABLE main.x.t (x INT) USING DELTA LOCATION '{loc}/t'")
    sql(admin, "INSERT INTO main.x.t VALUES (7)")
    granted, granted_token = _principal(admin, cluster_id)
    refused, refused_token = _principal(admin, cluster_id)
    sql(admin, f"GRANT SELECT ON TABLE main.x.t TO `{granted}`")

    def client(token):
        return WorkspaceClient(host=enforced.url, token=token, auth_type="pat")

    # /api/1.2: a context acts as the user who created it.
    read = "spark.table('main.x.t').collect()[0][0]"
    outcomes = {}
    contexts = {}
    for name, token in (("granted", granted_token), ("refused", refused_token)):
        w = client(token)
        ctx = w.command_execution.create_and_wait(cluster_id=cluster_id, language=compute.Language.PYTHON)
        contexts[name] = ctx.id
        outcomes[name] = w.command_execution.execute_and_wait(cluster_id=cluster_id, context_id=ctx.id,
                                                              language=compute.Language.PYTHON,
                                                              command=read).results
    assert outcomes["granted"].result_type == compute.ResultType.TEXT and outcomes["granted"].data == "7", \
        outcomes["granted"]
    r = outcomes["refused"]
    assert r.result_type == compute.ResultType.ERROR, r
    assert "INSUFFICIENT_PERMISSIONS" in (r.summary or "") + (r.cause or ""), r
    # Its session holds no token of the engine's: every token key is the creator's (or absent).
    keys = ["spark.minilake.uc.token", "spark.sql.catalog.main.token", "spark.hadoop.minilake.uc.token"]
    r = client(granted_token).command_execution.execute_and_wait(
        cluster_id=cluster_id, context_id=contexts["granted"], language=compute.Language.PYTHON,
        command=f"sorted({{spark.conf.get(k, '') for k in {keys!r}}} - {{''}})").results
    assert r.result_type == compute.ResultType.TEXT and r.data == repr([granted_token]), r
    # Files read by path: a volume's files as the context's creator (READ VOLUME to read, WRITE VOLUME to write).
    admin.volumes.create(catalog_name="main", schema_name="x", name="v", volume_type=catalog.VolumeType.MANAGED)
    admin.files.upload("/Volumes/main/x/v/in/a.csv", io.BytesIO(b"x\n5\n"), overwrite=True)
    sql(admin, f"GRANT READ VOLUME ON VOLUME main.x.v TO `{granted}`")
    read_file = "spark.read.option('header', True).csv('/Volumes/main/x/v/in').collect()[0][0]"
    write_file = "spark.range(1).write.mode('overwrite').parquet('/Volumes/main/x/v/out'); 'written'"

    def run(name, token, command):
        return client(token).command_execution.execute_and_wait(
            cluster_id=cluster_id, context_id=contexts[name], language=compute.Language.PYTHON,
            command=command).results

    def denied(r, privilege):
        assert r.result_type == compute.ResultType.ERROR, r
        said = (r.summary or "") + (r.cause or "")
        assert "INSUFFICIENT_PERMISSIONS" in said and f"User does not have {privilege} on Volume 'main.x.v'" \
            in said, said

    r = run("granted", granted_token, read_file)
    assert r.result_type == compute.ResultType.TEXT and r.data == "'5'", r
    denied(run("refused", refused_token, read_file), "READ VOLUME")
    # WRITE VOLUME alone writes but does not read: the driver's listing is allowed by either, and the task
    # that opens the file asks READ VOLUME for its job's caller.
    sql(admin, f"GRANT WRITE VOLUME ON VOLUME main.x.v TO `{refused}`")
    denied(run("refused", refused_token, read_file), "READ VOLUME")
    r = run("refused", refused_token, write_file.replace("/out'", "/out2'"))
    assert r.result_type == compute.ResultType.TEXT and r.data == "'written'", r
    denied(run("granted", granted_token, write_file), "WRITE VOLUME")
    sql(admin, f"GRANT WRITE VOLUME ON VOLUME main.x.v TO `{granted}`")
    r = run("granted", granted_token, write_file)
    assert r.result_type == compute.ResultType.TEXT and r.data == "'written'", r
    assert any(f.path.endswith(".parquet") for f in admin.files.list_directory_contents("/Volumes/main/x/v/out"))
    # A context outlives the token it was made with: its creator comes back with a new one (the first revoked),
    # and from that command on the context's Spark session and its dbutils act with the new one.
    fresh = admin.token_management.create_obo_token(application_id=granted, lifetime_seconds=3600)
    for t in admin.token_management.list():
        if t.owner_id == fresh.token_info.owner_id and t.token_id != fresh.token_info.token_id:
            admin.token_management.delete(t.token_id)
    with pytest.raises(Unauthenticated):
        client(granted_token).current_user.me()
    granted_token = fresh.token_value
    r = run("granted", granted_token,
            f"({read}, sorted({{spark.conf.get(k, '') for k in {keys!r}}} - {{''}}), len(dbutils.secrets.listScopes()) >= 0)")
    assert r.result_type == compute.ResultType.TEXT and r.data == repr((7, [granted_token], True)), r
    # Another principal's context is not the caller's to use.
    with pytest.raises(PermissionDenied):
        client(refused_token).command_execution.execute(cluster_id=cluster_id, context_id=contexts["granted"],
                                                        language=compute.Language.PYTHON, command=read)
    for name, token in (("granted", granted_token), ("refused", refused_token)):
        client(token).command_execution.destroy(cluster_id=cluster_id, context_id=contexts[name])

    # A job task on the existing cluster reads as the run's identity (run_as).
    path = f"/Shared/{unique('trust-exec')}.py"
    script = ("import os\n"
              "hidden = spark.conf.get('spark.hadoop.minilake.uc.token', '') in ('', os.environ['DATABRICKS_TOKEN'])\n"
              "print('engine-token-hidden=%s' % hidden)\n"
              "print('value=%s' % spark.table('main.x.t').collect()[0][0])\n")
    admin.workspace.upload(path, script.encode(), format=ws.ImportFormat.AUTO, overwrite=True)
    results = {}
    for name, app in (("granted", granted), ("refused", refused)):
        job = admin.jobs.create(name=unique(f"exec-{name}"), run_as=jobs.JobRunAs(service_principal_name=app),
                                tasks=[jobs.Task(task_key="t", existing_cluster_id=cluster_id,
                                                 spark_python_task=jobs.SparkPythonTask(python_file=path))])
        run = admin.jobs.run_now_and_wait(job.job_id)
        results[name] = (run.state.result_state, admin.jobs.get_run_output(run.tasks[0].run_id))
    state, out = results["granted"]
    assert state == jobs.RunResultState.SUCCESS and "value=7" in out.logs, (state, out.error, out.logs)
    assert "engine-token-hidden=True" in out.logs, out.logs
    state, out = results["refused"]
    assert state == jobs.RunResultState.FAILED, (state, out.logs)
    assert "engine-token-hidden=True" in out.logs, out.logs
    assert "INSUFFICIENT_PERMISSIONS" in (out.error or ""), (out.error, out.error_trace, out.logs)
