"""Foundation: identity through the real SDK, admin routes, Databricks-shaped errors."""
import pytest
import requests
from databricks.sdk.errors import NotImplemented as DatabricksNotImplemented
from databricks.sdk.errors import BadRequest


def test_current_user_me(w):
    me = w.current_user.me()
    assert me.user_name
    assert me.active is True
    assert any(e.primary for e in me.emails)


def test_me_carries_org_id_header(url):
    r = requests.get(f"{url}/api/2.0/preview/scim/v2/Me", headers={"Authorization": "Bearer x"})
    assert r.status_code == 200
    assert r.headers["X-Databricks-Org-Id"].isdigit()


def test_well_known_config(url):
    r = requests.get(f"{url}/.well-known/databricks-config")
    assert r.status_code == 200
    assert r.json()["workspace_id"].isdigit()


def test_admin_routes(url):
    assert requests.get(f"{url}/_minilake/health").json() == {"status": "ok"}
    ready = requests.get(f"{url}/_minilake/ready")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    services = requests.get(f"{url}/_minilake/services").json()
    assert "secrets" in services["enabled"]


def test_unknown_api_is_501_through_the_sdk(w):
    with pytest.raises(DatabricksNotImplemented) as e:
        w.api_client.do("GET", "/api/2.0/no-such-group/thing")
    assert e.value.error_code == "NOT_IMPLEMENTED"


def test_bad_json_is_a_400(w, url):
    r = requests.post(f"{url}/api/2.0/secrets/scopes/create", data="{not json",
                      headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.json()["error_code"]
    with pytest.raises(BadRequest):
        w.api_client.do("POST", "/api/2.0/secrets/scopes/create", body={"scope": 42})
