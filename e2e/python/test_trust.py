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
