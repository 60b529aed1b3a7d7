"""Issue 30's proof through the real Databricks CLI: with MINILAKE_AUTH=tokens MINILAKE_ENFORCE=1 a service
principal, authenticated as CI pipelines do (DATABRICKS_CLIENT_ID + DATABRICKS_CLIENT_SECRET, OAuth M2M with a
secret from the service principal secrets API, or an on-behalf-of token as DATABRICKS_TOKEN), is refused with
Databricks' error naming the missing privilege or permission (`tables get`, `jobs run-now`, `secrets
get-secret`, `workspace export`); the admin (the bootstrap token) grants it with the CLI's own commands (`grants
update`, `permissions update jobs|directories`, `secrets put-acl`); then it is allowed."""
import base64
import json

import pytest

from minilake import unique
from tools_fixtures import ENFORCED, ServicePrincipal, admin_objects, server_fixture

server = server_fixture(ENFORCED)

IDENTITIES = ["m2m", "pat"]


@pytest.fixture(scope="module")
def setup(server):
    """What the admin owns: catalog <cat> with table s.t, a job, a secret scope with key k."""
    return admin_objects(server, "trust_cli")


@pytest.fixture(params=IDENTITIES)
def bot(request, setup, cli):
    """The service principal's CLI, one service principal per test, authenticated one way or the other."""
    sp = ServicePrincipal(setup["w"], unique("trust-cli-bot"))
    return cli.as_identity(sp.m2m_env if request.param == "m2m" else sp.pat_env), sp


def refused(p, *fragments):
    """A refusal as the CLI shows it: a non-zero exit, Databricks' message on stderr, and the CLI's hints for a
    PERMISSION_DENIED answer (it gives them only when databricks-sdk-go mapped the answer to ErrPermissionDenied)."""
    assert p.returncode != 0, p.stdout
    for f in (*fragments, "Verify you have the required permissions"):
        assert f in p.stderr, p.stderr


def test_current_user_me_is_the_service_principal(bot):
    cli, sp = bot
    me = cli.json("current-user", "me")
    # As on Databricks, /Me names a service principal by its application id.
    assert (me["id"], me["userName"]) == (sp.id, sp.application_id)
    auth = cli.run("auth", "describe").stdout
    assert ("oauth-m2m" if "DATABRICKS_CLIENT_ID" in cli.env else "pat") in auth, auth


def test_the_refusal_is_databricks_permission_denied(bot, setup):
    """What the CLI prints is the message; --debug shows the answer itself: 403 PERMISSION_DENIED."""
    cli, _ = bot
    p = cli.run("tables", "get", f"{setup['cat']}.s.t", "--debug", check=False)
    assert p.returncode != 0
    assert "< HTTP/1.1 403 Forbidden" in p.stderr, p.stderr[-3000:]
    assert '"error_code": "PERMISSION_DENIED"' in p.stderr, p.stderr[-3000:]


def test_tables_get_refused_then_granted(cli, bot, setup):
    sp, app = bot[0], bot[1].application_id
    cat = setup["cat"]
    table = f"{cat}.s.t"
    refused(sp.run("tables", "get", table, check=False), f"User does not have USE CATALOG on Catalog '{cat}'")

    def grant(securable_type, full_name, *privileges):
        body = {"changes": [{"principal": app, "add": list(privileges)}]}
        return cli.json("grants", "update", securable_type, full_name, "--json", json.dumps(body))

    grant("catalog", cat, "USE_CATALOG")
    grant("schema", f"{cat}.s", "USE_SCHEMA")
    refused(sp.run("tables", "get", table, check=False), f"User does not have SELECT on Table '{table}'")
    out = grant("table", table, "SELECT")
    assert {"principal": app, "privileges": ["SELECT"]} in out["privilege_assignments"]
    got = sp.json("tables", "get", table)
    assert got["full_name"] == table
    assert [c["name"] for c in got["columns"]] == ["id", "v"]
    # The CLI shows the service principal its own effective privileges on the table, inherited ones included.
    eff = sp.json("grants", "get-effective", "table", table, "--principal", app)
    privs = {p["privilege"] for a in eff["privilege_assignments"] for p in a["privileges"]}
    assert {"SELECT", "USE_CATALOG", "USE_SCHEMA"} <= privs, eff
    # Take the grants away again so each identity's test starts from none.
    for securable_type, full_name, priv in (("table", table, "SELECT"), ("schema", f"{cat}.s", "USE_SCHEMA"),
                                            ("catalog", cat, "USE_CATALOG")):
        cli.json("grants", "update", securable_type, full_name, "--json",
                 json.dumps({"changes": [{"principal": app, "remove": [priv]}]}))
    refused(sp.run("tables", "get", table, check=False), "USE CATALOG")


def test_jobs_run_now_refused_then_granted(cli, bot, setup):
    sp, app = bot[0], bot[1].application_id
    job = str(setup["job"])
    refused(sp.run("jobs", "run-now", job, check=False), "does not have Admin or Manage Run or Owner permissions")
    refused(sp.run("jobs", "get", job, check=False), "does not have View or Admin or Manage Run or Owner permissions")
    acl = {"access_control_list": [{"service_principal_name": app, "permission_level": "CAN_MANAGE_RUN"}]}
    out = cli.json("permissions", "update", "jobs", job, "--json", json.dumps(acl))
    assert app in [a.get("service_principal_name") for a in out["access_control_list"]]
    run = sp.json("jobs", "run-now", job)  # waits for the run to finish
    assert run["state"]["result_state"] == "SUCCESS"
    assert sp.json("jobs", "get", job)["job_id"] == int(job)
    # CAN_MANAGE_RUN does not let it change the job's permissions.
    refused(sp.run("permissions", "set", "jobs", job, "--json", json.dumps(acl), check=False),
            f"does not have Manage permissions on Job with ID: ElasticJobId({job})")


def test_secrets_get_refused_then_granted(cli, bot, setup):
    sp, app = bot[0], bot[1].application_id
    scope = setup["scope"]
    refused(sp.run("secrets", "get-secret", scope, "k", check=False), f"does not have READ permission on scope {scope} to perform this action")
    cli.run("secrets", "put-acl", scope, app, "READ")
    got = sp.json("secrets", "get-secret", scope, "k")
    assert base64.b64decode(got["value"]) == b"s3cr3t"
    refused(sp.run("secrets", "put-secret", scope, "k2", "--string-value", "x", check=False),
            f"does not have WRITE permission on scope {scope} to perform this action")
    cli.run("secrets", "delete-acl", scope, app)
    refused(sp.run("secrets", "get-secret", scope, "k", check=False), "READ")


def test_workspace_export_refused_then_granted_on_the_folder(cli, bot):
    """A notebook in the admin's home folder: the service principal may not export it until the admin grants
    CAN_READ on the folder, which the notebook inherits."""
    sp, app = bot[0], bot[1].application_id
    folder = f"/Users/dev@minilake.local/{unique('trust')}"
    cli.run("workspace", "mkdirs", folder)
    source = "# Databricks notebook source\nprint('hello')\n"
    cli.run("workspace", "import", f"{folder}/nb", "--format", "SOURCE", "--language", "PYTHON",
            "--content", base64.b64encode(source.encode()).decode())
    refused(sp.run("workspace", "export", f"{folder}/nb", "--format", "SOURCE", check=False),
            f"does not have Read permissions on notebook {folder}/nb")
    folder_id = str(cli.json("workspace", "get-status", folder)["object_id"])
    acl = {"access_control_list": [{"service_principal_name": app, "permission_level": "CAN_READ"}]}
    cli.json("permissions", "update", "directories", folder_id, "--json", json.dumps(acl))
    out = sp.json("workspace", "export", f"{folder}/nb", "--format", "SOURCE")
    assert "print('hello')" in base64.b64decode(out["content"]).decode()
    # Read, not edit: overwriting it stays refused.
    refused(sp.run("workspace", "import", f"{folder}/nb", "--format", "SOURCE", "--language", "PYTHON",
                   "--overwrite", "--content", base64.b64encode(b"# Databricks notebook source\n").decode(),
                   check=False), f"does not have Edit permissions on notebook {folder}/nb")
