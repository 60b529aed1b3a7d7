"""Identity through the real SDK: SCIM users/groups/service principals, permissions, tokens."""
import pytest
import requests
from databricks.sdk.errors import NotFound, ResourceConflict, BadRequest
from databricks.sdk.service import iam, settings

from conftest import unique


def test_me_is_a_listed_user(w, url):
    me = w.current_user.me()
    listed = list(w.users.list(filter=f'userName eq "{me.user_name}"'))
    assert [u.id for u in listed] == [me.id]
    r = requests.get(f"{url}/api/2.0/preview/scim/v2/Me", headers={"Authorization": "Bearer x"})
    assert r.headers["X-Databricks-Org-Id"].isdigit()
    assert {g.display for g in me.groups} >= {"admins"}


def _cluster(w):
    """A real cluster: the permissions API answers 404 for a cluster id the compute service does not know."""
    return w.clusters.create(cluster_name=unique("perm"), spark_version="15.4.x-scala2.12",
                             num_workers=0).cluster_id


def test_me_follows_user_updates(w):
    me = w.current_user.me()
    w.users.patch(me.id, operations=[iam.Patch(op=iam.PatchOp.REPLACE, path="displayName", value="Renamed Me")])
    assert w.current_user.me().display_name == "Renamed Me"
    assert w.users.get(me.id).display_name == "Renamed Me"
    cluster_id = _cluster(w)
    perms = w.permissions.get("clusters", cluster_id)
    assert any(a.user_name == me.user_name and a.display_name == "Renamed Me" for a in perms.access_control_list)


def test_users_crud_and_errors(w):
    name = f"{unique('user')}@example.com"
    u = w.users.create(user_name=name, display_name="Test User")
    assert u.id.isdigit() and u.active
    got = w.users.get(u.id)
    assert got.user_name == name and got.display_name == "Test User"
    with pytest.raises(ResourceConflict):
        w.users.create(user_name=name)
    w.users.update(u.id, user_name=name, display_name="Renamed")
    assert w.users.get(u.id).display_name == "Renamed"
    w.users.delete(u.id)
    with pytest.raises(NotFound):
        w.users.get(u.id)
    with pytest.raises(NotFound):
        w.users.delete(u.id)


def test_users_iterator_pages_through_everyone(w):
    prefix = unique("page")
    created = {w.users.create(user_name=f"{prefix}_{i}@example.com").id for i in range(25)}
    seen = []
    for u in w.users.list(count=10, filter=f'userName sw "{prefix}"'):
        seen.append(u.id)
        assert len(seen) <= 25, "iterator did not stop"
    assert set(seen) == created and len(seen) == 25
    everyone = list(w.users.list(count=7))
    assert len(everyone) == 26  # plus the current user
    first = list(w.users.list(count=10, sort_by="userName", sort_order=iam.ListSortOrder.DESCENDING,
                              attributes="userName"))
    names = [u.user_name for u in first]
    assert names == sorted(names, reverse=True)


def test_user_filters(w):
    p = unique("flt")
    w.users.create(user_name=f"{p}_a@example.com", display_name="Alpha")
    w.users.create(user_name=f"{p}_b@example.com", display_name="Beta", external_id="ext-b")
    names = lambda f: sorted(u.user_name for u in w.users.list(filter=f))  # noqa: E731
    assert names(f'userName eq "{p}_a@example.com"') == [f"{p}_a@example.com"]
    assert names(f'userName co "{p}" and displayName eq "Beta"') == [f"{p}_b@example.com"]
    assert names('displayName eq "Alpha" or displayName eq "Beta"') == [f"{p}_a@example.com", f"{p}_b@example.com"]
    assert names(f'userName sw "{p}" and externalId pr') == [f"{p}_b@example.com"]
    with pytest.raises(BadRequest):
        list(w.users.list(filter="userName eq"))


def test_user_patch(w):
    u = w.users.create(user_name=f"{unique('patch')}@example.com")
    w.users.patch(u.id, operations=[
        iam.Patch(op=iam.PatchOp.REPLACE, path="active", value=False),
        iam.Patch(op=iam.PatchOp.ADD, path="entitlements", value=[{"value": "allow-cluster-create"}]),
    ], schemas=[iam.PatchSchema.URN_IETF_PARAMS_SCIM_API_MESSAGES_2_0_PATCH_OP])
    got = w.users.get(u.id)
    assert got.active is False
    assert [e.value for e in got.entitlements] == ["allow-cluster-create"]
    w.users.patch(u.id, operations=[
        iam.Patch(op=iam.PatchOp.REMOVE, path='entitlements[value eq "allow-cluster-create"]'),
        iam.Patch(op=iam.PatchOp.REPLACE, value={"active": True}),
    ])
    got = w.users.get(u.id)
    assert got.active is True and not got.entitlements


def test_groups_with_members(w):
    u = w.users.create(user_name=f"{unique('member')}@example.com")
    sp = w.service_principals.create(display_name=unique("robot"))
    g = w.groups.create(display_name=unique("grp"), members=[iam.ComplexValue(value=u.id)])
    assert [m.value for m in w.groups.get(g.id).members] == [u.id]
    w.groups.patch(g.id, operations=[
        iam.Patch(op=iam.PatchOp.ADD, path="members", value=[{"value": sp.id}]),
    ])
    assert g.id in [x.value for x in w.users.get(u.id).groups]
    assert g.id in [x.value for x in w.service_principals.get(sp.id).groups]
    w.groups.patch(g.id, operations=[iam.Patch(op=iam.PatchOp.REMOVE, path=f'members[value eq "{u.id}"]')])
    assert [m.value for m in w.groups.get(g.id).members] == [sp.id]
    assert not any(x.value == g.id for x in (w.users.get(u.id).groups or []))
    found = list(w.groups.list(filter=f'displayName eq "{g.display_name}"'))
    assert [x.id for x in found] == [g.id]
    with pytest.raises(ResourceConflict):
        w.groups.create(display_name=g.display_name)
    w.groups.delete(g.id)
    with pytest.raises(NotFound):
        w.groups.get(g.id)


def test_service_principals(w):
    sp = w.service_principals.create(display_name=unique("sp"), active=True)
    assert sp.application_id and sp.id.isdigit()
    found = list(w.service_principals.list(filter=f'applicationId eq "{sp.application_id}"'))
    assert [s.id for s in found] == [sp.id]
    w.service_principals.patch(sp.id, operations=[iam.Patch(op=iam.PatchOp.REPLACE, path="active", value=False)])
    assert w.service_principals.get(sp.id).active is False
    w.service_principals.delete(sp.id)
    with pytest.raises(NotFound):
        w.service_principals.get(sp.id)


def test_permissions_on_clusters_and_warehouses(w):
    me = w.current_user.me().user_name
    cluster_id = _cluster(w)
    perms = w.permissions.get("clusters", cluster_id)
    assert perms.object_id == f"/clusters/{cluster_id}" and perms.object_type == "cluster"
    owner = [a for a in perms.access_control_list if a.user_name == me][0]
    assert owner.all_permissions[0].permission_level == iam.PermissionLevel.CAN_MANAGE
    admins = [a for a in perms.access_control_list if a.group_name == "admins"][0]
    assert admins.all_permissions[0].inherited is True

    # warehouses have an owner (IS_OWNER) that a PUT without one keeps
    wh = w.warehouses.create(name=unique("perm"), cluster_size="Small").response.id
    g = w.groups.create(display_name=unique("readers"))
    w.permissions.set("warehouses", wh, access_control_list=[
        iam.AccessControlRequest(group_name=g.display_name, permission_level=iam.PermissionLevel.CAN_VIEW)])
    w.permissions.update("warehouses", wh, access_control_list=[
        iam.AccessControlRequest(group_name="users", permission_level=iam.PermissionLevel.CAN_USE)])
    acl = {(a.user_name or a.group_name): [p.permission_level.value for p in a.all_permissions]
           for a in w.permissions.get("warehouses", wh).access_control_list}
    assert acl == {me: ["IS_OWNER"], g.display_name: ["CAN_VIEW"], "users": ["CAN_USE"],
                   "admins": ["CAN_MANAGE"]}
    levels = [l.permission_level.value for l in
              w.permissions.get_permission_levels("warehouses", wh).permission_levels]
    assert set(levels) == {"CAN_USE", "CAN_MANAGE", "CAN_MONITOR", "CAN_VIEW", "IS_OWNER"}
    with pytest.raises(BadRequest):
        w.permissions.set("clusters", cluster_id, access_control_list=[
            iam.AccessControlRequest(user_name=me, permission_level=iam.PermissionLevel.IS_OWNER)])
    # the typed helpers of other services hit the same store, under the provider's sql/warehouses path
    got = w.warehouses.get_permissions(wh)
    assert got.object_id == f"/sql/warehouses/{wh}" and got.object_type == "warehouses"
    with pytest.raises(NotFound):
        w.warehouses.get_permissions("0123456789abcdef")
    # a type no running MiniLake package registered is refused as Databricks refuses an unknown one
    with pytest.raises(BadRequest, match="request_object_type is not recognized: serving-endpoints"):
        w.permissions.get("serving-endpoints", "e1")
    # pipelines registered theirs: a missing pipeline is 404
    with pytest.raises(NotFound):
        w.permissions.get("pipelines", "p1")


def test_tokens_value_returned_once(w):
    created = w.tokens.create(comment="e2e", lifetime_seconds=600)
    value = created.token_value
    assert value.startswith("dapi")
    infos = list(w.tokens.list())
    assert [t.token_id for t in infos] == [created.token_info.token_id]
    assert value not in repr(infos)
    mgmt = w.token_management.get(created.token_info.token_id)
    assert mgmt.token_info.created_by_username == w.current_user.me().user_name
    assert value not in repr(mgmt)
    w.tokens.delete(created.token_info.token_id)
    assert list(w.tokens.list()) == []
    with pytest.raises(NotFound):
        w.tokens.delete(created.token_info.token_id)


def test_token_management_and_token_permissions(w):
    sp = w.service_principals.create(display_name=unique("obo"))
    obo = w.token_management.create_obo_token(application_id=sp.application_id, comment="for the robot",
                                              lifetime_seconds=3600)
    assert obo.token_value and obo.token_info.owner_id == int(sp.id)
    listed = [t.token_id for t in w.token_management.list(created_by_username=w.current_user.me().user_name)]
    assert obo.token_info.token_id in listed
    assert obo.token_info.token_id not in [t.token_id for t in w.tokens.list()]
    w.token_management.delete(obo.token_info.token_id)
    with pytest.raises(NotFound):
        w.token_management.get(obo.token_info.token_id)

    perms = w.token_management.get_permissions()
    assert perms.object_id == "/authorization/tokens"
    w.token_management.set_permissions(access_control_list=[
        settings.TokenAccessControlRequest(group_name="users", permission_level=settings.TokenPermissionLevel.CAN_USE)])
    generic = w.permissions.get("authorization", "tokens")
    assert {a.group_name for a in generic.access_control_list if a.group_name} == {"users", "admins"}


def test_put_user_keeps_groups_like_terraform(w):
    u = w.users.create(user_name=f"{unique('tf')}@example.com")
    g = w.groups.create(display_name=unique("tfg"), members=[iam.ComplexValue(value=u.id)])
    current = w.users.get(u.id)
    w.users.update(u.id, user_name=current.user_name, display_name="Via PUT", groups=current.groups,
                   entitlements=[iam.ComplexValue(value="databricks-sql-access")])
    after = w.users.get(u.id)
    assert after.display_name == "Via PUT"
    assert g.id in [x.value for x in after.groups]
    assert [e.value for e in after.entitlements] == ["databricks-sql-access"]


def test_permissions_follow_the_objects_lifecycle(w):
    with pytest.raises(NotFound):
        w.permissions.get("clusters", "0101-000000-nosuchcl")
    with pytest.raises(NotFound):
        w.permissions.set("clusters", "0101-000000-nosuchcl", access_control_list=[])
    with pytest.raises(NotFound):
        w.permissions.get("cluster-policies", "NOSUCHPOLICY")
    with pytest.raises(NotFound):
        w.permissions.get("instance-pools", "0101-000000-nopool")

    cluster_id = _cluster(w)
    w.permissions.set("clusters", cluster_id, access_control_list=[
        iam.AccessControlRequest(group_name="users", permission_level=iam.PermissionLevel.CAN_ATTACH_TO)])
    assert any(a.group_name == "users" for a in w.permissions.get("clusters", cluster_id).access_control_list)
    # a terminated cluster still has its permissions; a permanently deleted one has none
    w.clusters.delete(cluster_id=cluster_id)
    assert any(a.group_name == "users" for a in w.permissions.get("clusters", cluster_id).access_control_list)
    w.clusters.permanent_delete(cluster_id=cluster_id)
    with pytest.raises(NotFound):
        w.permissions.get("clusters", cluster_id)

    policy_id = w.cluster_policies.create(name=unique("pol"), definition="{}").policy_id
    w.permissions.set("cluster-policies", policy_id, access_control_list=[
        iam.AccessControlRequest(group_name="users", permission_level=iam.PermissionLevel.CAN_USE)])
    w.cluster_policies.delete(policy_id=policy_id)
    with pytest.raises(NotFound):
        w.permissions.get("cluster-policies", policy_id)

    pool_id = w.instance_pools.create(instance_pool_name=unique("pool"), node_type_id="i3.xlarge").instance_pool_id
    assert w.permissions.get("instance-pools", pool_id).object_id == f"/instance-pools/{pool_id}"
    w.instance_pools.delete(instance_pool_id=pool_id)
    with pytest.raises(NotFound):
        w.permissions.get("instance-pools", pool_id)


def test_scim_filter_with_an_unquoted_value(w):
    """The Python SDK's own integration tests filter with an unquoted value; Databricks accepts it."""
    name = f"any-{unique('g').replace('_', '')}"
    g = w.groups.create(display_name=name)
    assert [x.id for x in w.groups.list(filter=f"displayName eq {name}")] == [g.id]
    assert list(w.groups.list(filter="displayName eq any-nosuchgroup")) == []
