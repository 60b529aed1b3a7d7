"""SQL warehouses through the real databricks-sdk: the waiters drive the state machine."""
import pytest
from databricks.sdk.errors import NotFound
from databricks.sdk.service.sql import State, StatementState

from conftest import unique


def test_create_and_wait_echoes_provider_defaults(w, url):
    name = unique("wh")
    wh = w.warehouses.create_and_wait(name=name, cluster_size="Small")
    assert wh.state == State.RUNNING
    assert wh.name == name and wh.cluster_size == "Small"
    assert wh.auto_stop_mins == 120
    assert wh.enable_photon is True
    assert wh.max_num_clusters == 1 and wh.min_num_clusters == 1
    assert wh.spot_instance_policy.value == "COST_OPTIMIZED"
    assert wh.channel.name.value == "CHANNEL_NAME_CURRENT"
    assert wh.num_clusters == 1
    assert wh.creator_name
    assert wh.jdbc_url and wh.id in wh.jdbc_url
    assert wh.odbc_params.path == f"/sql/1.0/warehouses/{wh.id}"
    assert wh.id in [x.id for x in w.warehouses.list()]


def test_stop_start_edit_delete(w):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small")
    stopped = w.warehouses.stop_and_wait(wh.id)
    assert stopped.state == State.STOPPED and stopped.num_clusters == 0
    running = w.warehouses.start_and_wait(wh.id)
    assert running.state == State.RUNNING

    w.warehouses.edit(wh.id, name="renamed", cluster_size="Medium", auto_stop_mins=30)
    got = w.warehouses.get(wh.id)
    assert (got.name, got.cluster_size, got.auto_stop_mins) == ("renamed", "Medium", 30)

    w.warehouses.delete(wh.id)
    assert w.warehouses.get(wh.id).state == State.DELETED
    assert wh.id not in [x.id for x in w.warehouses.list()]


def test_stopped_warehouse_starts_on_demand(w):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small")
    w.warehouses.stop_and_wait(wh.id)
    r = w.statement_execution.execute_statement(warehouse_id=wh.id, statement="SELECT 1 AS x")
    assert r.status.state == StatementState.SUCCEEDED
    assert r.result.data_array == [["1"]]
    assert w.warehouses.get(wh.id).state == State.RUNNING


def test_missing_warehouse(w):
    with pytest.raises(NotFound):
        w.warehouses.get("0123456789abcdef")
    with pytest.raises(NotFound):
        w.statement_execution.execute_statement(warehouse_id="0123456789abcdef", statement="SELECT 1")


def test_data_sources_is_a_bare_array(w, url):
    import requests

    a = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    b = w.warehouses.create(name=unique("wh"), cluster_size="X-Small").id
    r = requests.get(f"{url}/api/2.0/preview/sql/data_sources", headers={"Authorization": "Bearer x"}, timeout=10)
    body = r.json()
    assert isinstance(body, list)
    # The starter warehouse is a data source from the start, as on a new workspace.
    assert {d["warehouse_id"] for d in body} == {a, b, "dev"}
    assert all(d["id"] and d["name"] for d in body)
    ds = w.data_sources.list()
    assert {d.warehouse_id for d in ds} == {a, b, "dev"}
