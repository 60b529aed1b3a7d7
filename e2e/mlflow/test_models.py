"""Models in Unity Catalog: the mlflow client with registry URI `databricks-uc` registers, aliases and loads them;
the Databricks SDK's registered_models / model_versions APIs and the grants API see the same models."""
import os

import mlflow
import pandas as pd
import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import NotFound
from databricks.sdk.service import catalog
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException
from mlflow.models import infer_signature
from sklearn.linear_model import LinearRegression


@pytest.fixture
def uc():
    mlflow.set_registry_uri("databricks-uc")
    yield MlflowClient(registry_uri="databricks-uc")
    mlflow.set_registry_uri(None)


@pytest.fixture
def w(url):
    return WorkspaceClient(host=url, token="dapi-minilake-mlflow", auth_type="pat")


def logged_model(folder, slope=2.0):
    mlflow.set_experiment(f"{folder}/exp")
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    model = LinearRegression().fit(X, slope * X["x"] + 1)
    with mlflow.start_run() as run:
        info = mlflow.sklearn.log_model(model, name="model", signature=infer_signature(X, model.predict(X)))
    return run.info.run_id, info.model_uri


def test_register_alias_load_by_alias(server, api, w, uc, folder, schema):
    name = f"{schema}.regressor"
    rid, uri = logged_model(folder)
    mv = mlflow.register_model(uri, name)
    assert mv.version == "1" and mv.status == "READY" and mv.run_id == rid
    uc.set_registered_model_alias(name, "champion", mv.version)
    pred = mlflow.pyfunc.load_model(f"models:/{name}@champion").predict(pd.DataFrame({"x": [5.0]}))
    assert abs(float(pred[0]) - 11.0) < 1e-6
    assert uc.get_model_version_by_alias(name, "champion").version == "1"

    # A second version; the alias moves; search sees both.
    _, uri2 = logged_model(folder, slope=3.0)
    mv2 = mlflow.register_model(uri2, name)
    assert mv2.version == "2"
    uc.set_registered_model_alias(name, "champion", "2")
    pred = mlflow.pyfunc.load_model(f"models:/{name}@champion").predict(pd.DataFrame({"x": [5.0]}))
    assert abs(float(pred[0]) - 16.0) < 1e-6
    assert sorted(v.version for v in uc.search_model_versions(f"name='{name}'")) == ["1", "2"]
    assert [v.version for v in uc.search_model_versions(f"name='{name}' AND run_id='{rid}'")] == ["1"]
    assert uc.get_registered_model(name).aliases == {"champion": "2"}

    # Unity Catalog's API sees what mlflow registered, through the Databricks SDK.
    m = w.registered_models.get(name, include_aliases=True)
    assert m.full_name == name and m.catalog_name == schema.split(".")[0] and m.owner
    assert [(a.alias_name, a.version_num) for a in m.aliases] == [("champion", 2)]
    assert [v.version for v in w.model_versions.list(name)] == [2, 1]
    v1 = w.model_versions.get(name, 1)
    assert v1.status == catalog.ModelVersionInfoStatus.READY and v1.source == uri and v1.run_id == rid
    assert w.model_versions.get_by_alias(name, "champion").version == 2
    assert name in [x.full_name for x in w.registered_models.list(catalog_name=schema.split(".")[0], schema_name="models")]
    status, body = api.call("GET", f"/api/2.1/unity-catalog/models/{name}/aliases/champion")
    assert status == 200 and body["version"] == 2

    # The version's files: the Files API's /Models root, real files under the model's storage location,
    # read-only once the version is READY.
    files = [e.name for e in w.files.list_directory_contents(f"/Models/{name.replace('.', '/')}/1")]
    assert "MLmodel" in files and "model.pkl" in files
    loc = v1.storage_location
    assert loc.startswith("file://") and os.path.isfile(os.path.join(loc[len("file://") :], "MLmodel"))
    assert loc.startswith("file://" + os.path.join(server.data_dir, "mlflow", "models"))
    status, body = api.call("PUT", f"/api/2.0/fs/files/Models/{name.replace('.', '/')}/1/extra.txt", data=b"x")
    assert status == 403 and body["error_code"] == "PERMISSION_DENIED"

    # Grants on a model are FUNCTION grants in Unity Catalog.
    w.grants.update(
        "function",
        name,
        changes=[catalog.PermissionsChange(principal="users", add=[catalog.Privilege.EXECUTE])],
    )
    got = w.grants.get("function", name)
    assert [(a.principal, a.privileges) for a in got.privilege_assignments] == [("users", [catalog.Privilege.EXECUTE])]

    # Delete a version (its alias goes), then the model (its versions and files go).
    w.registered_models.delete_alias(name, "champion")
    w.model_versions.delete(name, 1)
    with pytest.raises(NotFound):
        w.model_versions.get(name, 1)
    assert not os.path.exists(loc[len("file://") :])
    w.registered_models.delete(name)
    with pytest.raises(NotFound):
        w.registered_models.get(name)
    with pytest.raises(MlflowException) as e:
        uc.get_registered_model(name)
    assert e.value.error_code == "RESOURCE_DOES_NOT_EXIST"


def test_registered_models_api(w, schema):
    cat, sch = schema.split(".")
    m = w.registered_models.create(catalog_name=cat, schema_name=sch, name="Direct", comment="made by the SDK")
    assert m.full_name == f"{schema}.direct" and m.comment == "made by the SDK" and m.storage_location.startswith("file://")
    m = w.registered_models.update(f"{schema}.direct", comment="changed")
    assert w.registered_models.get(f"{schema}.direct").comment == "changed"
    m = w.registered_models.update(f"{schema}.direct", new_name="renamed")
    assert m.full_name == f"{schema}.renamed"
    with pytest.raises(NotFound):
        w.registered_models.get(f"{schema}.direct")
    with pytest.raises(Exception) as e:
        w.registered_models.create(catalog_name=cat, schema_name=sch, name="renamed")
    assert "already exists" in str(e.value)
    with pytest.raises(NotFound):
        w.registered_models.create(catalog_name=cat, schema_name="nope", name="m")
    with pytest.raises(NotFound):
        w.model_versions.get(f"{schema}.renamed", 7)
    # A schema holding a model is not empty; a forced delete drops the model with it.
    with pytest.raises(Exception) as e:
        w.schemas.delete(schema)
    assert "not empty" in str(e.value)
    w.schemas.delete(schema, force=True)
    with pytest.raises(NotFound):
        w.registered_models.get(f"{schema}.renamed")


def test_a_model_version_update_through_the_sdk(w, api, schema):
    """PATCH /api/2.1/unity-catalog/models/{full_name}/versions/{v} with a comment: w.model_versions.update."""
    cat, sch = schema.split(".")
    w.registered_models.create(catalog_name=cat, schema_name=sch, name="versioned")
    full = f"{schema}.versioned"
    v = api.ok("POST", "/api/2.1/unity-catalog/models/versions",
               json={"catalog_name": cat, "schema_name": sch, "model_name": "versioned", "source": "models:/m-1"})
    assert v["version"] == 1 and v.get("comment") in (None, "")
    updated = w.model_versions.update(full, 1, comment="the first")
    assert updated.comment == "the first" and updated.version == 1
    assert w.model_versions.get(full, 1).comment == "the first"
    assert [x.comment for x in w.model_versions.list(full)] == ["the first"]
    with pytest.raises(NotFound):
        w.model_versions.update(full, 2, comment="none")


def test_model_names_and_unknown_models(uc, api, schema):
    # The client re-raises this one with a hint about the legacy registry, and loses the error code doing it
    # (MlflowException takes the code's string as unknown: INTERNAL_ERROR); the message keeps it.
    with pytest.raises(MlflowException) as e:
        uc.create_registered_model("only.two")
    assert e.value.message.startswith("INVALID_PARAMETER_VALUE") and "three levels" in e.value.message
    with pytest.raises(MlflowException) as e:
        uc.get_registered_model(f"{schema}.missing")
    assert e.value.error_code == "RESOURCE_DOES_NOT_EXIST"
    with pytest.raises(MlflowException) as e:
        uc.get_model_version_by_alias(f"{schema}.missing", "champion")
    assert e.value.error_code == "RESOURCE_DOES_NOT_EXIST"
    status, body = api.call("GET", f"/api/2.1/unity-catalog/models/{schema}.missing")
    assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST"
    uc.create_registered_model(f"{schema}.empty")
    with pytest.raises(MlflowException) as e:
        uc.set_registered_model_alias(f"{schema}.empty", "champion", "1")
    assert e.value.error_code == "RESOURCE_DOES_NOT_EXIST"
    with pytest.raises(MlflowException) as e:
        uc.set_registered_model_alias(f"{schema}.empty", "v1", "1")
    assert e.value.error_code == "INVALID_PARAMETER_VALUE"


def test_native_registry_mode(folder, schema, uc, monkeypatch):
    """MLFLOW_ENABLE_UC_NATIVE_MODEL_REGISTRY: the client registers through /api/2.1/unity-catalog itself."""
    monkeypatch.setenv("MLFLOW_ENABLE_UC_NATIVE_MODEL_REGISTRY", "true")
    name = f"{schema}.native"
    _, uri = logged_model(folder)
    native = MlflowClient(registry_uri="databricks-uc")
    native.create_registered_model(name)
    mv = mlflow.register_model(uri, name)
    assert mv.version == "1" and mv.status == "READY"
    native.set_registered_model_alias(name, "prod", "1")
    pred = mlflow.pyfunc.load_model(f"models:/{name}@prod").predict(pd.DataFrame({"x": [1.0]}))
    assert abs(float(pred[0]) - 3.0) < 1e-6
    assert native.get_registered_model(name).aliases == {"prod": "1"}
