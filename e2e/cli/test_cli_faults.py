"""Issue 30's faults through the real Databricks CLI: requests answered 503 TEMPORARILY_UNAVAILABLE or 429
REQUEST_LIMIT_EXCEEDED by /_minilake/faults are retried by the CLI (databricks-sdk-go's client retries every
method on 429 and 503) and the command succeeds; a 500 is not retried and fails as Databricks' would. Each test
reads the faults' `used` counts to prove the retries happened. The Go SDK waits its own linear backoff (1 s,
2 s, ... plus jitter) and does not read Retry-After on API calls, so three faults cost a few seconds."""
import time

import pytest

from minilake import unique

ME = "/api/2.0/preview/scim/v2/Me"
CATALOGS = "/api/2.1/unity-catalog/catalogs"


def inject(api, **fault):
    r = api.post("/_minilake/faults", fault)
    assert r.status_code == 200, r.text
    return r.json()["id"]


@pytest.fixture
def faults(api):
    """The faults' `used` counts by id; every fault is cleared after the test."""
    yield lambda: {f["id"]: f["used"] for f in api.get("/_minilake/faults").json()["faults"]}
    assert api.s.delete(api.url + "/_minilake/faults", timeout=30).status_code == 200


def test_current_user_me_through_503s_and_a_429(cli, api, faults):
    unavailable = inject(api, method="GET", path=ME, status=503, error_code="TEMPORARILY_UNAVAILABLE",
                         message="injected unavailable", count=2)
    limited = inject(api, method="GET", path=ME, status=429, error_code="REQUEST_LIMIT_EXCEEDED",
                     message="injected rate limit", count=1, retry_after_seconds=1)
    t0 = time.monotonic()
    me = cli.json("current-user", "me")
    assert me["userName"]
    assert faults() == {unavailable: 2, limited: 1}
    # Three backoffs of at least a second each (1 s, 2 s, 3 s plus jitter in the Go SDK).
    assert time.monotonic() - t0 >= 3


def test_catalogs_create_through_a_503_and_a_429_on_post(cli, api, w, faults):
    unavailable = inject(api, method="POST", path=CATALOGS, status=503, error_code="TEMPORARILY_UNAVAILABLE",
                         message="injected unavailable", count=1)
    limited = inject(api, method="POST", path=CATALOGS, status=429, error_code="REQUEST_LIMIT_EXCEEDED",
                     message="injected rate limit", count=1, retry_after_seconds=1)
    name = unique("faults")
    created = cli.json("catalogs", "create", name)
    assert created["name"] == name
    assert faults() == {unavailable: 1, limited: 1}
    # The refused attempts wrote nothing: exactly one catalog of that name.
    assert [c.name for c in w.catalogs.list() if c.name == name] == [name]


def test_secrets_create_scope_through_503s(cli, api, w, faults):
    fid = inject(api, method="POST", path="/api/2.0/secrets/*", status=503,
                 error_code="TEMPORARILY_UNAVAILABLE", message="injected unavailable", count=2)
    scope = unique("faults")
    cli.run("secrets", "create-scope", scope)
    assert faults() == {fid: 2}
    assert scope in [s.name for s in w.secrets.list_scopes()]


def test_a_500_is_not_retried(cli, api, faults):
    # databricks-sdk-go retries 429 and 503 (and a few transient messages), not a plain 500: the CLI fails
    # at once with Databricks' message, and the fault fired once.
    fid = inject(api, method="GET", path=ME, status=500, error_code="INTERNAL_ERROR",
                 message="injected internal error", count=3)
    p = cli.run("current-user", "me", check=False)
    assert p.returncode != 0
    assert "injected internal error" in p.stderr
    assert faults() == {fid: 1}
