"""Issue 30 through the real Python SDK: its retries against faults injected with /_minilake/faults, and with
MINILAKE_AUTH=tokens the identities it authenticates as (a made-up token refused, an on-behalf-of token and
OAuth M2M client credentials of a service principal, each /Me as itself)."""
import time

import pytest
import requests
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import PermissionDenied, Unauthenticated

from conftest import Server, unique


def _faults(url, token="x"):
    return requests.get(f"{url}/_minilake/faults", headers={"Authorization": f"Bearer {token}"}).json()["faults"]


def _inject(url, token="x", **fault):
    r = requests.post(f"{url}/_minilake/faults", json=fault, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return r.json()["id"]


def test_sdk_retries_through_injected_503_and_429(w, url):
    w.catalogs.create(name=unique("retry"))
    _inject(url, method="GET", path="/api/2.1/unity-catalog/catalogs", status=503,
            error_code="TEMPORARILY_UNAVAILABLE", message="injected", count=2)
    _inject(url, method="GET", path="/api/2.0/preview/scim/v2/Me", status=429,
            error_code="REQUEST_LIMIT_EXCEEDED", message="injected", count=1, retry_after_seconds=1)
    t0 = time.monotonic()
    assert any(c.name.startswith("retry_") for c in w.catalogs.list())
    assert w.current_user.me().user_name
    used = {f["path"]: f["used"] for f in _faults(url)}
    assert used == {"/api/2.1/unity-catalog/catalogs": 2, "/api/2.0/preview/scim/v2/Me": 1}
    # The 429's Retry-After was honoured (the SDK waited about a second before its retry).
    assert time.monotonic() - t0 >= 1


def test_a_fault_without_count_fails_until_deleted(w, url):
    fid = _inject(url, method="POST", path="/api/2.0/secrets/*", status=400,
                  error_code="INVALID_PARAMETER_VALUE", message="injected refusal")
    with pytest.raises(Exception, match="injected refusal"):
        w.secrets.create_scope(scope=unique("s"))
    requests.delete(f"{url}/_minilake/faults/{fid}", headers={"Authorization": "Bearer x"})
    w.secrets.create_scope(scope=unique("s"))


@pytest.fixture(scope="module")
def authed():
    s = Server(env={"MINILAKE_AUTH": "tokens", "MINILAKE_ADMIN_TOKEN": "e2e-admin",
                    "MINILAKE_SERVICES": "iam,unity-catalog"})
    yield s
    s.stop()


def test_identities_with_tokens(authed):
    host = authed.url
    with pytest.raises(Unauthenticated):
        WorkspaceClient(host=host, token="made-up", auth_type="pat").current_user.me()
    admin = WorkspaceClient(host=host, token="e2e-admin", auth_type="pat")
    assert admin.current_user.me().user_name == "dev@minilake.local"

    sp = admin.service_principals.create(display_name=unique("bot"))
    obo = admin.token_management.create_obo_token(application_id=sp.application_id, lifetime_seconds=600)
    bot = WorkspaceClient(host=host, token=obo.token_value, auth_type="pat")
    assert bot.current_user.me().user_name == sp.application_id
    # Faults are an admin's to inject.
    with pytest.raises(PermissionDenied):
        bot.api_client.do("GET", "/_minilake/faults")

    secret = admin.service_principal_secrets_proxy.create(service_principal_id=sp.id)
    m2m = WorkspaceClient(host=host, client_id=sp.application_id, client_secret=secret.secret,
                          auth_type="oauth-m2m")
    assert m2m.current_user.me().user_name == sp.application_id
    admin.token_management.delete(obo.token_info.token_id)
    with pytest.raises(Unauthenticated):
        bot.current_user.me()


def test_sdk_retries_through_a_dropped_connection(w, url):
    # The connection closes with no answer; the SDK retries a connection error and the second try answers.
    me = "/api/2.0/preview/scim/v2/Me"
    fid = _inject(url, method="GET", path=me, drop=True, count=2)
    try:
        with pytest.raises(requests.ConnectionError):
            requests.get(f"{url}{me}", headers={"Authorization": "Bearer x"})
        assert w.current_user.me().user_name
        assert [f["used"] for f in _faults(url) if f["id"] == fid] == [2]
    finally:
        requests.delete(f"{url}/_minilake/faults/{fid}", headers={"Authorization": "Bearer x"})


def test_an_injected_statement_failure(w, url):
    wh = w.warehouses.create_and_wait(name=unique("faults"), cluster_size="2X-Small", max_num_clusters=1)
    marker = unique("fault_marker")
    _inject(url, target="statement", statement=marker, error_code="INTERNAL_ERROR",
            message="injected statement failure", count=1)
    sql = f"SELECT '{marker}' AS m"
    failed = w.statement_execution.execute_statement(statement=sql, warehouse_id=wh.id, wait_timeout="30s")
    assert failed.status.state.value == "FAILED"
    assert failed.status.error.message == "injected statement failure"
    # Spent: the same statement runs again.
    ok = w.statement_execution.execute_statement(statement=sql, warehouse_id=wh.id, wait_timeout="30s")
    assert ok.status.state.value == "SUCCEEDED" and ok.result.data_array == [[marker]]
    w.warehouses.delete(wh.id)


def test_a_jobs_max_retries_through_an_injected_task_failure(w, url):
    from databricks.sdk.service import compute, jobs
    from databricks.sdk.service.workspace import ImportFormat

    home = f"/Users/{w.current_user.me().user_name}/{unique('faults')}"
    w.workspace.mkdirs(home)
    path = f"{home}/ok.py"
    w.workspace.upload(path, b"print('ran for real')\n", format=ImportFormat.AUTO, overwrite=True)
    key = unique("flaky")
    _inject(url, target="task", task_key=key, message="injected task failure", count=1)
    run = w.jobs.submit_and_wait(run_name="faults", tasks=[jobs.SubmitTask(
        task_key=key, spark_python_task=jobs.SparkPythonTask(python_file=path),
        environment_key="e", max_retries=1, min_retry_interval_millis=0)],
        environments=[jobs.JobEnvironment(environment_key="e", spec=compute.Environment(environment_version="2"))])
    attempts = sorted((t for t in run.tasks if t.task_key == key), key=lambda t: t.attempt_number or 0)
    assert [t.attempt_number or 0 for t in attempts] == [0, 1], run.tasks
    assert attempts[0].state.result_state == jobs.RunResultState.FAILED
    assert "injected task failure" in (w.jobs.get_run_output(attempts[0].run_id).error or "")
    if "not available" in (w.jobs.get_run_output(attempts[1].run_id).error or ""):
        pytest.skip("Spark is not installed here")
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    assert "ran for real" in w.jobs.get_run_output(attempts[1].run_id).logs
