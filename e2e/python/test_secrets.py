"""Secrets through the real SDK: scopes, values (readable as on Databricks, or write-only by setting), ACLs."""
import base64

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import BadRequest, NotFound, ResourceAlreadyExists, PermissionDenied
from databricks.sdk.service.workspace import AclPermission

from conftest import Server, unique


def test_scope_and_secret_lifecycle(w):
    scope = unique("scope")
    w.secrets.create_scope(scope=scope)
    assert scope in [s.name for s in w.secrets.list_scopes()]
    with pytest.raises(ResourceAlreadyExists):
        w.secrets.create_scope(scope=scope)

    w.secrets.put_secret(scope=scope, key="password", string_value="hunter2")
    w.secrets.put_secret(scope=scope, key="blob", bytes_value=base64.b64encode(b"\x00\x01").decode())
    keys = sorted(s.key for s in w.secrets.list_secrets(scope=scope))
    assert keys == ["blob", "password"]
    assert all(s.last_updated_timestamp > 0 for s in w.secrets.list_secrets(scope=scope))

    # as on Databricks for a caller with READ (every caller, while ACLs are not enforced)
    got = w.secrets.get_secret(scope=scope, key="password")
    assert got.key == "password" and base64.b64decode(got.value) == b"hunter2"
    assert base64.b64decode(w.secrets.get_secret(scope=scope, key="blob").value) == b"\x00\x01"
    with pytest.raises(NotFound):
        w.secrets.get_secret(scope=scope, key="nope")

    w.secrets.delete_secret(scope=scope, key="blob")
    assert [s.key for s in w.secrets.list_secrets(scope=scope)] == ["password"]
    w.secrets.delete_scope(scope=scope)
    with pytest.raises(NotFound):
        list(w.secrets.list_secrets(scope=scope))


def test_acls_are_stored(w):
    scope = unique("acl")
    w.secrets.create_scope(scope=scope)
    w.secrets.put_acl(scope=scope, principal="users", permission=AclPermission.READ)
    assert w.secrets.get_acl(scope=scope, principal="users").permission == AclPermission.READ
    principals = {a.principal: a.permission for a in w.secrets.list_acls(scope=scope)}
    assert principals["users"] == AclPermission.READ
    w.secrets.delete_acl(scope=scope, principal="users")
    with pytest.raises(NotFound):
        w.secrets.get_acl(scope=scope, principal="users")


def test_errors_never_echo_a_secret_value(w):
    scope = unique("echo")
    w.secrets.create_scope(scope=scope)
    for body in ({"bytes_value": 12345678}, {"string_value": 12345678},
                 {"bytes_value": "x12345678"}, {"string_value": "12345678", "bytes_value": "MTIzNDU2Nzg="}):
        with pytest.raises(BadRequest) as e:
            w.api_client.do("POST", "/api/2.0/secrets/put", body={"scope": scope, "key": "k", **body})
        assert e.value.error_code == "INVALID_PARAMETER_VALUE"
        assert "12345678" not in str(e.value)


def test_write_only_setting_refuses_get(tmp_path):
    """MINILAKE_SECRETS_WRITE_ONLY=1 restores the write-only behaviour: get is 403 and shows no value."""
    s = Server(env={"MINILAKE_SECRETS_WRITE_ONLY": "1"})
    try:
        w = WorkspaceClient(host=s.url, token="dapi-minilake-test", auth_type="pat")
        scope = unique("wo")
        w.secrets.create_scope(scope=scope)
        w.secrets.put_secret(scope=scope, key="password", string_value="hunter2")
        with pytest.raises(PermissionDenied) as e:
            w.secrets.get_secret(scope=scope, key="password")
        assert "hunter2" not in str(e.value)
        assert base64.b64encode(b"hunter2").decode() not in str(e.value)
        assert [x.key for x in w.secrets.list_secrets(scope=scope)] == ["password"]
    finally:
        s.stop()
    assert not any("hunter2" in line for line in s.output)
