"""A tiny client for MiniLake's own REST API (DATABRICKS_HOST / DATABRICKS_TOKEN), standard library only, so
the runtime works in any Python the user points MiniLake at."""
import json
import os
import urllib.error
import urllib.parse
import urllib.request


class RestError(Exception):
    """A Databricks-shaped error answer: status, error_code and message."""

    def __init__(self, status, error_code, message):
        super().__init__(message)
        self.status = status
        self.error_code = error_code


class Rest:
    def __init__(self, host=None, token=None):
        self.host = (host or os.environ.get("DATABRICKS_HOST") or "").rstrip("/")
        self._token = token

    @property
    def token(self):
        # Read per request: an execution context's REPL changes DATABRICKS_TOKEN when its creator's token is
        # refreshed, and dbutils' client was made before.
        return self._token or os.environ.get("DATABRICKS_TOKEN") or ""

    def _require_host(self):
        if not self.host:
            raise RuntimeError("DATABRICKS_HOST is not set: this task was started without a MiniLake server to call back")

    def request(self, method, path, query=None, body=None, raw=None, headers=None, expect_json=True):
        self._require_host()
        url = self.host + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        data = None
        h = {"Authorization": "Bearer " + self.token}
        if headers:
            h.update(headers)
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        elif raw is not None:
            data = raw
            h["Content-Type"] = "application/octet-stream"
        req = urllib.request.Request(url, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=300) as res:
                payload = res.read()
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                j = json.loads(text)
                raise RestError(e.code, j.get("error_code", ""), j.get("message", text)) from None
            except ValueError:
                raise RestError(e.code, "", text or e.reason) from None
        if not expect_json:
            return payload
        return json.loads(payload) if payload else {}

    def get(self, route, /, **query):
        return self.request("GET", route, query=query)

    def post(self, route, body):
        return self.request("POST", route, body=body)


def quote_path(p):
    """A Files API path into the URL, each segment escaped (spaces, '#', '?', non-ASCII)."""
    return urllib.parse.quote(p, safe="/")
