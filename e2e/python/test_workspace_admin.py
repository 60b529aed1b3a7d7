"""Workspace administration through the real SDK: conf, IP access lists, git credentials, init scripts,
notification destinations and settings."""
import base64

import pytest
from databricks.sdk.errors import BadRequest, NotFound, ResourceConflict
from databricks.sdk.service import settings
from databricks.sdk.service.settings import (
    Config,
    DefaultNamespaceSetting,
    EmailConfig,
    GenericWebhookConfig,
    ListType,
    StringMessage,
)

from conftest import unique


def test_workspace_conf(w):
    before = w.workspace_conf.get_status(keys="enableIpAccessLists,enableTokensConfig")
    assert before == {"enableIpAccessLists": "false", "enableTokensConfig": "true"}
    w.workspace_conf.set_status({"enableIpAccessLists": "true", "maxTokenLifetimeDays": "30"})
    after = w.workspace_conf.get_status(keys="enableIpAccessLists,maxTokenLifetimeDays")
    assert after == {"enableIpAccessLists": "true", "maxTokenLifetimeDays": "30"}
    with pytest.raises(BadRequest):
        w.workspace_conf.get_status(keys="notARealKey")


def test_ip_access_lists(w):
    label = unique("office")
    created = w.ip_access_lists.create(label=label, list_type=ListType.ALLOW,
                                       ip_addresses=["10.0.0.0/16", "192.168.0.1"])
    info = created.ip_access_list
    assert info.address_count == 2 and info.enabled and info.list_type == ListType.ALLOW
    assert w.ip_access_lists.get(info.list_id).ip_access_list.label == label
    w.ip_access_lists.update(info.list_id, enabled=False)
    assert w.ip_access_lists.get(info.list_id).ip_access_list.enabled is False
    w.ip_access_lists.replace(info.list_id, label="vpn", list_type=ListType.BLOCK, enabled=True,
                              ip_addresses=["1.2.3.4/32"])
    got = w.ip_access_lists.get(info.list_id).ip_access_list
    assert (got.label, got.list_type, got.ip_addresses) == ("vpn", ListType.BLOCK, ["1.2.3.4/32"])
    assert [l.list_id for l in w.ip_access_lists.list()] == [info.list_id]
    with pytest.raises(BadRequest):
        w.ip_access_lists.create(label="bad", list_type=ListType.ALLOW, ip_addresses=["10.0.0.0/40"])
    w.ip_access_lists.delete(info.list_id)
    with pytest.raises(NotFound):
        w.ip_access_lists.get(info.list_id)


def test_git_credentials(w):
    cred = w.git_credentials.create(git_provider="gitHub", git_username="octocat",
                                    personal_access_token="ghp_not_returned")
    assert cred.credential_id > 0 and cred.git_provider == "gitHub"
    with pytest.raises(BadRequest) as e:
        w.git_credentials.create(git_provider="gitHub", git_username="other", personal_access_token="x")
    assert e.value.error_code == "INVALID_STATE"
    w.git_credentials.update(cred.credential_id, git_provider="gitHub", git_username="octo2")
    got = w.git_credentials.get(cred.credential_id)
    assert got.git_username == "octo2"
    assert "ghp_not_returned" not in repr(list(w.git_credentials.list())) + repr(got)
    w.git_credentials.delete(cred.credential_id)
    with pytest.raises(NotFound):
        w.git_credentials.get(cred.credential_id)


def test_global_init_scripts(w):
    script = base64.b64encode(b"#!/bin/bash\necho hello\n").decode()
    first = w.global_init_scripts.create(name=unique("gis"), script=script, enabled=True)
    second = w.global_init_scripts.create(name=unique("gis"), script=script, position=0)
    listed = list(w.global_init_scripts.list())
    assert [s.script_id for s in listed] == [second.script_id, first.script_id]
    assert [s.position for s in listed] == [0, 1]
    got = w.global_init_scripts.get(first.script_id)
    assert got.script == script and got.enabled is True
    w.global_init_scripts.update(first.script_id, name="renamed", script=script, position=0)
    assert [s.name for s in w.global_init_scripts.list()][0] == "renamed"
    w.global_init_scripts.delete(first.script_id)
    with pytest.raises(NotFound):
        w.global_init_scripts.get(first.script_id)


def test_notification_destinations(w):
    hook = w.notification_destinations.create(
        display_name=unique("hook"),
        config=Config(generic_webhook=GenericWebhookConfig(url="https://example.com/hook", password="s3cret")))
    assert hook.destination_type == settings.DestinationType.WEBHOOK
    assert hook.config.generic_webhook.url_set and hook.config.generic_webhook.password_set
    assert hook.config.generic_webhook.password is None
    mail = w.notification_destinations.create(
        display_name=unique("mail"), config=Config(email=EmailConfig(addresses=["ops@example.com"])))
    ids = [d.id for d in w.notification_destinations.list(page_size=1)]
    assert ids == [hook.id, mail.id]
    updated = w.notification_destinations.update(mail.id, display_name="ops",
                                                 config=Config(email=EmailConfig(addresses=["b@example.com"])))
    assert updated.display_name == "ops" and updated.config.email.addresses == ["b@example.com"]
    got = w.notification_destinations.get(hook.id)
    assert "s3cret" not in repr(got)
    w.notification_destinations.delete(hook.id)
    with pytest.raises(NotFound):
        w.notification_destinations.get(hook.id)


def test_default_namespace_setting(w):
    with pytest.raises(NotFound) as e:
        w.settings.default_namespace.get()
    etag = e.value.details[0].metadata["etag"] if e.value.details else None
    updated = w.settings.default_namespace.update(
        allow_missing=True, field_mask="namespace.value",
        setting=DefaultNamespaceSetting(namespace=StringMessage(value="main"), etag=etag))
    assert updated.namespace.value == "main" and updated.etag
    got = w.settings.default_namespace.get()
    assert got.namespace.value == "main" and got.etag == updated.etag and got.setting_name
    with pytest.raises(ResourceConflict):
        w.settings.default_namespace.update(
            allow_missing=True, field_mask="namespace.value",
            setting=DefaultNamespaceSetting(namespace=StringMessage(value="x"), etag=etag or "stale"))
    deleted = w.settings.default_namespace.delete(etag=got.etag)
    assert deleted.etag
    with pytest.raises(NotFound):
        w.settings.default_namespace.get()


def test_restrict_workspace_admins_setting(w):
    got = w.settings.restrict_workspace_admins.get()
    assert got.restrict_workspace_admins.status == settings.RestrictWorkspaceAdminsMessageStatus.ALLOW_ALL
