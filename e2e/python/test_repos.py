"""Repos (Git folders) through the real databricks-sdk, cloning for real from a git repository served over
http on loopback (git's dumb http protocol: a bare repository after `git update-server-info`, served by
Python's http.server), as a user's git server would be: create, list with a prefix across pages, update to a
branch and to a tag, sparse checkout, permissions, delete."""
import functools
import os
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from databricks.sdk.errors import NotFound
from databricks.sdk.service.workspace import (
    ObjectType,
    RepoAccessControlRequest,
    RepoPermissionLevel,
    SparseCheckout,
)

from conftest import unique

# What packages/repos pages by (Repos.list): one more than this proves a second page is read.
PAGE_SIZE = 20


def _git(cwd, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "e2e", "GIT_AUTHOR_EMAIL": "e2e@example.com",
           "GIT_COMMITTER_NAME": "e2e", "GIT_COMMITTER_EMAIL": "e2e@example.com", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _write(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output to the test's own
        pass


@pytest.fixture(scope="module")
def remote(tmp_path_factory):
    """A repository with `main` (tag v1 on its first commit, a second commit after), a `dev` branch, files in
    two folders, served read-only over http on 127.0.0.1. Yields (url, {ref: commit})."""
    root = tmp_path_factory.mktemp("git")
    work = str(root / "work")
    os.makedirs(work)
    _git(work, "init", "-q", "-b", "main")
    _write(work, "README.md", "# project\n")
    _write(work, "src/app.py", "print('app')\n")
    _write(work, "docs/guide.md", "guide\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "first")
    _git(work, "tag", "v1")
    v1 = _git(work, "rev-parse", "HEAD")
    _write(work, "src/later.py", "print('later')\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "second")
    main = _git(work, "rev-parse", "HEAD")
    _git(work, "checkout", "-q", "-b", "dev")
    _write(work, "dev.txt", "dev\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "dev")
    dev = _git(work, "rev-parse", "HEAD")
    _git(work, "checkout", "-q", "main")
    served = root / "served"
    os.makedirs(served)
    _git(str(served), "clone", "-q", "--bare", work, "project.git")
    _git(str(served / "project.git"), "update-server-info")

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(served)))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/project.git", {"v1": v1, "main": main, "dev": dev}
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def me(w):
    return w.current_user.me().user_name


def _names(w, path):
    return sorted(os.path.basename(o.path) for o in w.workspace.list(path))


def test_create_update_branch_and_tag_delete(w, me, remote):
    url, commits = remote
    path = f"/Repos/{me}/{unique('proj')}"
    repo = w.repos.create(url=url, provider="gitHub", path=path)
    assert (repo.path, repo.url, repo.provider, repo.branch) == (path, url, "gitHub", "main")
    assert repo.head_commit_id == commits["main"]
    # The Git folder is a workspace object of type REPO whose object_id is the repo id, holding the checkout.
    st = w.workspace.get_status(path)
    assert (st.object_type, st.object_id) == (ObjectType.REPO, repo.id)
    assert _names(w, path) == ["README.md", "docs", "src"]
    assert _names(w, f"{path}/src") == ["app.py", "later.py"]

    w.repos.update(repo.id, branch="dev")
    got = w.repos.get(repo.id)
    assert (got.branch, got.head_commit_id) == ("dev", commits["dev"])
    assert "dev.txt" in _names(w, path)

    # A tag is a detached HEAD: no branch in the answer, the files of that commit in the folder.
    w.repos.update(repo.id, tag="v1")
    got = w.repos.get(repo.id)
    assert got.branch is None and got.head_commit_id == commits["v1"]
    assert _names(w, f"{path}/src") == ["app.py"]
    assert "dev.txt" not in _names(w, path)

    w.repos.update(repo.id, branch="main")
    assert w.repos.get(repo.id).head_commit_id == commits["main"]

    w.repos.delete(repo.id)
    with pytest.raises(NotFound, match="Repo could not be found"):
        w.repos.get(repo.id)
    with pytest.raises(NotFound):
        w.workspace.get_status(path)


def test_list_with_prefix_pages(w, me, remote):
    url, _ = remote
    folder = f"/Repos/{unique('team')}"
    paths = [f"{folder}/r{i:02d}" for i in range(PAGE_SIZE + 2)]
    for p in paths:
        w.repos.create(url=url, provider="gitHub", path=p)
    other = w.repos.create(url=url, provider="gitHub", path=f"/Repos/{me}/{unique('elsewhere')}")

    # The SDK follows next_page_token: every repo under the prefix, in path order, none from elsewhere.
    listed = [r.path for r in w.repos.list(path_prefix=folder)]
    assert listed == paths
    # The first page is a page, with a token for the rest (what the SDK followed above).
    first = w.api_client.do("GET", "/api/2.0/repos", query={"path_prefix": folder})
    assert len(first["repos"]) == PAGE_SIZE and first["next_page_token"]
    # path_prefix is a string prefix, as the SDK documents it (and /Workspace in front changes nothing).
    assert [r.path for r in w.repos.list(path_prefix=f"/Workspace{folder}/r2")] == paths[20:]
    # Without a prefix: the whole /Repos tree.
    assert {r.path for r in w.repos.list()} == {*paths, other.path}


def test_sparse_checkout(w, me, remote):
    url, _ = remote
    path = f"/Repos/{me}/{unique('sparse')}"
    repo = w.repos.create(url=url, provider="gitHub", path=path, sparse_checkout=SparseCheckout(patterns=["src"]))
    assert repo.sparse_checkout.patterns == ["src"]
    assert w.repos.get(repo.id).sparse_checkout.patterns == ["src"]
    # Cone mode: the files at the top and the folders in the cone; docs/ is outside it, so absent.
    assert _names(w, path) == ["README.md", "src"]
    with pytest.raises(NotFound):
        w.workspace.get_status(f"{path}/docs/guide.md")

    from databricks.sdk.service.workspace import SparseCheckoutUpdate
    w.repos.update(repo.id, sparse_checkout=SparseCheckoutUpdate(patterns=["docs"]))
    assert w.repos.get(repo.id).sparse_checkout.patterns == ["docs"]
    assert _names(w, path) == ["README.md", "docs"]


def test_permissions(w, me, remote):
    url, _ = remote
    repo = w.repos.create(url=url, provider="gitHub", path=f"/Repos/{me}/{unique('acl')}")
    perms = w.repos.get_permissions(str(repo.id))
    assert perms.object_type == "repo" and perms.object_id == f"/repos/{repo.id}"
    # The creator manages the repo.
    levels = {a.user_name: [p.permission_level for p in a.all_permissions] for a in perms.access_control_list}
    assert RepoPermissionLevel.CAN_MANAGE in levels[me]

    reader = w.users.create(user_name=f"{unique('reader')}@example.com").user_name
    got = w.repos.set_permissions(str(repo.id), access_control_list=[
        RepoAccessControlRequest(user_name=reader, permission_level=RepoPermissionLevel.CAN_READ)])
    levels = {a.user_name: [p.permission_level for p in a.all_permissions] for a in got.access_control_list}
    assert levels[reader] == [RepoPermissionLevel.CAN_READ]
    again = w.repos.get_permissions(str(repo.id))
    assert reader in {a.user_name for a in again.access_control_list}
    assert {l.permission_level for l in w.repos.get_permission_levels(str(repo.id)).permission_levels} == {
        RepoPermissionLevel.CAN_READ, RepoPermissionLevel.CAN_RUN, RepoPermissionLevel.CAN_EDIT,
        RepoPermissionLevel.CAN_MANAGE}
