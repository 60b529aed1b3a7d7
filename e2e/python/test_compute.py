"""Compute through the real SDK: clusters and their waiters, events, catalog lookups, policies, pools, libraries.

The session server runs with MINILAKE_CLUSTER_START_DELAY=0.2 and MINILAKE_CLUSTER_TERMINATE_DELAY=0.2, so the
SDK's own waiters (which poll clusters/get) see every transition."""
import datetime
import json

import pytest
import requests
from databricks.sdk.errors import InvalidParameterValue, NotFound, ResourceAlreadyExists, ResourceDoesNotExist
from databricks.sdk.service.compute import (
    EventType,
    Library,
    ListClustersFilterBy,
    ListClustersSortBy,
    ListClustersSortByField,
    MavenLibrary,
    PythonPyPiLibrary,
    State,
    TerminationReasonCode,
)

from conftest import unique

WAIT = datetime.timedelta(seconds=60)


def new_cluster(w, name=None, **extra):
    return w.clusters.create_and_wait(
        cluster_name=name or unique("cluster"),
        spark_version="15.4.x-scala2.12",
        node_type_id="i3.xlarge",
        num_workers=1,
        timeout=WAIT,
        **extra,
    )


def test_create_and_wait_reaches_running(w):
    c = new_cluster(w, custom_tags={"team": "data"}, spark_conf={"spark.sql.shuffle.partitions": "8"})
    assert c.state == State.RUNNING
    assert c.cluster_id
    assert c.creator_user_name == "dev@minilake.local"
    assert c.custom_tags == {"team": "data"}
    assert c.spark_conf == {"spark.sql.shuffle.partitions": "8"}
    assert c.default_tags["ClusterId"] == c.cluster_id
    assert c.driver is not None and c.driver.private_ip
    assert len(c.executors) == 1
    assert c.spark_context_id
    assert c.start_time > 0
    assert c.cluster_id in [x.cluster_id for x in w.clusters.list()]


def test_terminate_start_restart_resize_edit_through_waiters(w):
    c = new_cluster(w)
    terminated = w.clusters.delete(cluster_id=c.cluster_id).result(timeout=WAIT)
    assert terminated.state == State.TERMINATED
    assert terminated.termination_reason.code == TerminationReasonCode.USER_REQUEST
    assert terminated.terminated_time >= terminated.start_time

    started = w.clusters.start_and_wait(cluster_id=c.cluster_id, timeout=WAIT)
    assert started.state == State.RUNNING
    assert started.termination_reason is None

    restarted = w.clusters.restart_and_wait(cluster_id=c.cluster_id, timeout=WAIT)
    assert restarted.state == State.RUNNING
    assert restarted.spark_context_id != started.spark_context_id

    resized = w.clusters.resize_and_wait(cluster_id=c.cluster_id, num_workers=3, timeout=WAIT)
    assert resized.num_workers == 3
    assert len(resized.executors) == 3

    edited = w.clusters.edit_and_wait(
        cluster_id=c.cluster_id,
        cluster_name="renamed",
        spark_version="16.4.x-scala2.12",
        node_type_id="m5d.xlarge",
        num_workers=2,
        timeout=WAIT,
    )
    assert edited.state == State.RUNNING
    assert edited.cluster_name == "renamed"
    assert edited.spark_version == "16.4.x-scala2.12"

    types = [e.type for e in w.clusters.events(cluster_id=c.cluster_id)]
    # Newest first, as Databricks orders them by default.
    assert types[-1] == EventType.CREATING
    for t in (EventType.TERMINATING, EventType.STARTING, EventType.RESTARTING, EventType.RESIZING, EventType.EDITED):
        assert t in types
    assert types.count(EventType.RUNNING) >= 4


def test_events_page_through_the_sdk_iterator(w):
    c = new_cluster(w)
    for _ in range(30):
        w.clusters.pin(cluster_id=c.cluster_id)
        w.clusters.unpin(cluster_id=c.cluster_id)
    events = list(w.clusters.events(cluster_id=c.cluster_id, limit=7))
    assert len(events) == 63  # CREATING, RUNNING, DRIVER_HEALTHY and 60 pin/unpin events
    assert events[0].timestamp >= events[-1].timestamp


def test_delete_while_pending_ends_terminated(w):
    wait = w.clusters.create(
        cluster_name=unique("pending"), spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge", num_workers=0
    )
    w.clusters.delete(cluster_id=wait.cluster_id)
    c = w.clusters.wait_get_cluster_terminated(cluster_id=wait.cluster_id, timeout=WAIT)
    assert c.state == State.TERMINATED
    assert EventType.RUNNING not in [e.type for e in w.clusters.events(cluster_id=wait.cluster_id)]


def test_permanent_delete_and_missing_cluster(w):
    c = new_cluster(w)
    w.clusters.pin(cluster_id=c.cluster_id)
    pinned = list(w.clusters.list(filter_by=ListClustersFilterBy(is_pinned=True)))
    assert [x.cluster_id for x in pinned] == [c.cluster_id]
    with pytest.raises(Exception) as e:
        w.clusters.permanent_delete(cluster_id=c.cluster_id)
    assert "unpin the cluster first" in str(e.value)
    w.clusters.unpin(cluster_id=c.cluster_id)
    w.clusters.permanent_delete(cluster_id=c.cluster_id)
    # clusters/get answers 400 "Cluster ... does not exist"; the SDK maps it to ResourceDoesNotExist.
    with pytest.raises(ResourceDoesNotExist):
        w.clusters.get(cluster_id=c.cluster_id)
    with pytest.raises(NotFound):
        w.clusters.get(cluster_id="0000-000000-missing0")
    with pytest.raises(InvalidParameterValue):
        w.clusters.start(cluster_id="0000-000000-missing0")


def test_list_filters_and_sort(w):
    a = new_cluster(w, name="a-" + unique())
    b = new_cluster(w, name="b-" + unique())
    w.clusters.delete_and_wait(cluster_id=b.cluster_id, timeout=WAIT)
    running = list(w.clusters.list(filter_by=ListClustersFilterBy(cluster_states=[State.RUNNING])))
    assert [x.cluster_id for x in running] == [a.cluster_id]
    terminated = list(w.clusters.list(filter_by=ListClustersFilterBy(cluster_states=[State.TERMINATED])))
    assert [x.cluster_id for x in terminated] == [b.cluster_id]
    by_name = list(w.clusters.list(sort_by=ListClustersSortBy(field=ListClustersSortByField.CLUSTER_NAME), page_size=1))
    assert [x.cluster_id for x in by_name] == [a.cluster_id, b.cluster_id]


def test_catalog_lookups(w):
    keys = [v.key for v in w.clusters.spark_versions().versions]
    assert "15.4.x-scala2.12" in keys and "16.4.x-scala2.13" in keys
    assert w.clusters.select_spark_version(latest=True, long_term_support=True) == "16.4.x-scala2.12"
    assert w.clusters.select_spark_version(latest=True, scala="2.13") == "18.2.x-scala2.13"
    assert w.clusters.select_spark_version(latest=True, long_term_support=True, scala="2.13") == "17.3.x-scala2.13"
    assert w.clusters.select_spark_version(latest=True, ml=True, long_term_support=True) == "16.4.x-cpu-ml-scala2.12"
    node_types = {n.node_type_id: n for n in w.clusters.list_node_types().node_types}
    assert node_types["i3.xlarge"].num_cores == 4
    assert "Standard_DS3_v2" in node_types
    assert w.clusters.select_node_type(local_disk=True, min_memory_gb=16, min_cores=4, min_gpus=0) == "m5d.xlarge"
    zones = w.clusters.list_zones()
    assert zones.default_zone in zones.zones


def test_api_2_0_aliases(url):
    headers = {"Authorization": "Bearer dapi-test"}
    r = requests.post(
        f"{url}/api/2.0/clusters/create",
        json={"cluster_name": "old", "spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge", "num_workers": 0},
        headers=headers,
    )
    assert r.status_code == 200, r.text
    cid = r.json()["cluster_id"]
    r = requests.get(f"{url}/api/2.0/clusters/get", params={"cluster_id": cid}, headers=headers)
    assert r.json()["cluster_name"] == "old"
    r = requests.get(f"{url}/api/2.0/clusters/get", params={"cluster_id": "nope"}, headers=headers)
    assert r.status_code == 400
    assert r.json() == {"error_code": "INVALID_PARAMETER_VALUE", "message": "Cluster nope does not exist"}


def test_cluster_policies(w):
    definition = json.dumps(
        {
            "spark_version": {"type": "fixed", "value": "16.4.x-scala2.12"},
            "custom_tags.team": {"type": "fixed", "value": "data"},
            "autotermination_minutes": {"type": "range", "maxValue": 60, "defaultValue": 30},
        }
    )
    name = unique("policy")
    created = w.cluster_policies.create(name=name, definition=definition, max_clusters_per_user=2)
    p = w.cluster_policies.get(policy_id=created.policy_id)
    assert p.name == name and json.loads(p.definition) == json.loads(definition)
    assert p.creator_user_name == "dev@minilake.local"
    with pytest.raises(ResourceAlreadyExists):
        w.cluster_policies.create(name=name, definition=definition)

    c = w.clusters.create_and_wait(
        cluster_name=unique("governed"),
        spark_version="16.4.x-scala2.12",
        node_type_id="i3.xlarge",
        num_workers=0,
        policy_id=created.policy_id,
        apply_policy_default_values=True,
        timeout=WAIT,
    )
    assert c.custom_tags == {"team": "data"}
    assert c.autotermination_minutes == 30
    with pytest.raises(InvalidParameterValue):
        w.clusters.create(
            spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge", num_workers=0, policy_id=created.policy_id
        )
    with pytest.raises(InvalidParameterValue):
        w.clusters.create(spark_version="15.4.x-scala2.12", num_workers=0, policy_id="NOSUCHPOLICY")

    w.cluster_policies.edit(policy_id=created.policy_id, name=name + "-2", definition="{}")
    assert w.cluster_policies.get(policy_id=created.policy_id).name == name + "-2"
    assert created.policy_id in [x.policy_id for x in w.cluster_policies.list()]
    w.cluster_policies.delete(policy_id=created.policy_id)
    with pytest.raises(NotFound):
        w.cluster_policies.get(policy_id=created.policy_id)


def test_policy_families(w):
    families = list(w.policy_families.list())
    assert "Personal Compute" in [f.name for f in families]
    fam = w.policy_families.get(policy_family_id="personal-vm")
    assert json.loads(fam.definition)["num_workers"]["value"] == 0
    created = w.cluster_policies.create(name=unique("family"), policy_family_id="job-cluster")
    p = w.cluster_policies.get(policy_id=created.policy_id)
    assert p.policy_family_id == "job-cluster"
    assert json.loads(p.definition)["cluster_type"]["value"] == "job"


def test_instance_pools(w):
    name = unique("pool")
    created = w.instance_pools.create(
        instance_pool_name=name, node_type_id="i3.xlarge", min_idle_instances=1, max_capacity=5
    )
    pool = w.instance_pools.get(instance_pool_id=created.instance_pool_id)
    assert pool.instance_pool_name == name
    assert pool.state.value == "ACTIVE"
    assert pool.stats.idle_count == 1
    c = w.clusters.create_and_wait(
        spark_version="15.4.x-scala2.12", instance_pool_id=created.instance_pool_id, num_workers=2, timeout=WAIT
    )
    assert c.node_type_id == "i3.xlarge"
    assert w.instance_pools.get(instance_pool_id=created.instance_pool_id).stats.used_count == 3
    w.instance_pools.edit(
        instance_pool_id=created.instance_pool_id,
        instance_pool_name=name + "-2",
        node_type_id="i3.xlarge",
        max_capacity=10,
    )
    assert w.instance_pools.get(instance_pool_id=created.instance_pool_id).max_capacity == 10
    assert [p.instance_pool_id for p in w.instance_pools.list()] == [created.instance_pool_id]
    w.instance_pools.delete(instance_pool_id=created.instance_pool_id)
    assert list(w.instance_pools.list()) == []
    assert w.instance_pools.get(instance_pool_id=created.instance_pool_id).state.value == "DELETED"


def test_libraries(w):
    c = new_cluster(w)
    libs = [
        Library(pypi=PythonPyPiLibrary(package="requests==2.32.3")),
        Library(maven=MavenLibrary(coordinates="com.example:lib:1.0")),
    ]
    w.libraries.install(cluster_id=c.cluster_id, libraries=libs)
    statuses = list(w.libraries.cluster_status(cluster_id=c.cluster_id))
    assert [s.status.value for s in statuses] == ["INSTALLED", "INSTALLED"]
    assert statuses[0].library.pypi.package == "requests==2.32.3"
    w.libraries.uninstall(cluster_id=c.cluster_id, libraries=[libs[1]])
    statuses = list(w.libraries.cluster_status(cluster_id=c.cluster_id))
    assert statuses[1].status.value == "UNINSTALL_ON_RESTART"
    all_statuses = list(w.libraries.all_cluster_statuses())
    assert [s.cluster_id for s in all_statuses] == [c.cluster_id]
    w.clusters.restart_and_wait(cluster_id=c.cluster_id, timeout=WAIT)
    statuses = list(w.libraries.cluster_status(cluster_id=c.cluster_id))
    assert [s.library.pypi.package for s in statuses] == ["requests==2.32.3"]


def test_ensure_running_and_change_owner(w):
    c = new_cluster(w)
    w.clusters.delete_and_wait(cluster_id=c.cluster_id, timeout=WAIT)
    w.clusters.change_owner(cluster_id=c.cluster_id, owner_username="someone@example.com")
    assert w.clusters.get(cluster_id=c.cluster_id).creator_user_name == "someone@example.com"
    w.clusters.ensure_cluster_is_running(c.cluster_id)
    assert w.clusters.get(cluster_id=c.cluster_id).state == State.RUNNING
