"""The seeds' own examples, run verbatim with only the host changed; where today's client rejects the seeds'
text itself, the verbatim copy is run to show that error and the minimal fix beside it is run for real."""
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(__file__)


def with_host(path, url):
    with open(os.path.join(HERE, path)) as f:
        return f.read().replace("http://localhost:8000", url)


def run_python(code, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)


def test_quickstart_verbatim_meets_the_sdk_enum_check(server, tmp_path):
    p = run_python(with_host("quickstart.py", server.url), tmp_path)
    assert p.returncode != 0
    assert "AttributeError: 'str' object has no attribute 'value'" in p.stderr


def test_quickstart_with_the_enum_prints_the_row(server, tmp_path):
    server.reset()
    p = run_python(with_host("quickstart_fixed.py", server.url), tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[['Ana', '459.90']]"


def test_curl_lines(server):
    server.reset()
    text = with_host("curl.sh", server.url)
    commands = [c for c in re.split(r"\n(?=curl )", re.sub(r"^#.*$", "", text, flags=re.M).strip()) if c.strip()]
    outputs = []
    for c in commands:
        args = shlex.split(c.replace("\\\n", " "))
        p = subprocess.run([*args, "-sS", "--fail-with-body"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, (c, p.stdout, p.stderr)
        outputs.append(p.stdout)
    assert '"status":"ok"' in outputs[0].replace(" ", "")
    assert '"name":"sales"' in outputs[1].replace(" ", "")
    assert '[["42"]]' in outputs[2].replace(" ", "")


def test_bundle_verbatim_is_refused_by_the_cli(server, cli, tmp_path):
    project = tmp_path / "b"
    shutil.copytree(os.path.join(HERE, "bundle"), project)
    (project / "databricks.yml").write_text(with_host("bundle/databricks.yml", server.url))
    p = cli.run("bundle", "validate", "-t", "dev", cwd=project, check=False)
    assert p.returncode != 0 and "no such target" in p.stdout + p.stderr


def test_bundle_fixed_deploys_runs_and_destroys(server, cli, w, tmp_path):
    project = tmp_path / "b"
    shutil.copytree(os.path.join(HERE, "bundle-fixed"), project)
    cli.run("bundle", "deploy", "-t", "dev", cwd=project)
    out = cli.run("bundle", "run", "daily_load", "-t", "dev", cwd=project, timeout=900)
    assert "loaded 3 rows" in out.stdout + out.stderr
    cli.run("bundle", "destroy", "-t", "dev", "--auto-approve", cwd=project)
    assert not list(w.jobs.list())
