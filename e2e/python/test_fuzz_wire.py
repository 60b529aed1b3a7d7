"""Issue 30, robustness: fuzz what test_fuzz.py (JSON REST from the SDK's types) does not reach, on the wire.

Three groups, each seeded (FUZZ_SEED) and bounded, each against the session server reset for the test:
1. Thrift (the SQL connectors' TCLIService over TBinaryProtocol, `POST /sql/1.0/warehouses/<id>` and the
   cluster form `/sql/protocolv1/o/<org>/<cluster>`): random bytes, truncated and oversized messages, wrong
   message types, unknown methods and field ids, huge strings and maps, hostile SQL, handles that do not exist
   or belong to a closed session. The valid messages are built with the connector's own generated TCLIService
   client over a memory transport, then mutated. Expected: an HTTP 4xx (Databricks-shaped) or a Thrift reply
   (a TStatus error or a TApplicationException), and a real connector session working afterwards.
2. The Spark Connect port (gRPC over h2c): malformed HTTP/2 on raw sockets (no `h2` in the venv), and gRPC
   calls through Node's own HTTP/2 client (no `grpcio` in the venv; Node runs the server, so it is there):
   unknown paths, bad cluster ids and authorization, bad gRPC frames, protobuf garbage, a call cut mid-body.
   Every call names no running cluster (or a path outside the service), so MiniLake itself answers and no
   Spark starts. Expected: a gRPC status within a bounded time, and a new connection served after each case.
   The raw bytes also go to MiniLake's own port (its TLS door sniffs the first byte): REST answers after each.
   Not sent: a real method with no cluster id, which goes to the serverless Spark Connect server and starts it.
3. Binary bodies: Files API uploads (random, empty, 20 MB, cut mid-body, hostile paths): the file then holds
   exactly the acknowledged bytes or does not exist; DBFS put/add-block/read with bad base64, bad handles and
   offsets; workspace import with a non-base64 `content`.

Asserted everywhere: no 5xx (501 allowed), 4xx bodies with `error_code` and `message`, `/_minilake/health`
answering after every group."""
import base64
import hashlib
import json
import os
import random
import socket
import struct
import subprocess
import time
from urllib.parse import urlparse

import pytest
import requests
from databricks import sql
from databricks.sdk.service.catalog import VolumeType
from databricks.sql.thrift_api.TCLIService import TCLIService, ttypes
from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.transport import TTransport

from conftest import unique

SEED = int(os.environ.get("FUZZ_SEED", "30"))
TIMEOUT = 20
H = {"Authorization": "Bearer dapi-fuzz"}


# ---------------------------------------------------------------- shared checks

def _healthy(url):
    try:
        return requests.get(url + "/_minilake/health", timeout=10).status_code == 200
    except requests.RequestException:
        return False


def _check_http(problems, where, r):
    """No 5xx (501 allowed); a 4xx/5xx answer is Databricks-shaped JSON."""
    if r.status_code >= 500 and r.status_code != 501:
        problems.append(f"{where}: {r.status_code} {r.text[:300]}")
    if r.status_code >= 400:
        try:
            j = r.json()
            ok = isinstance(j, dict) and isinstance(j.get("error_code"), str) and isinstance(j.get("message"), str)
        except ValueError:
            ok = False
        if not ok:
            problems.append(f"{where}: {r.status_code} not Databricks-shaped: {r.content[:200]!r}")


def _cut_upload(url, path, declared, sent, method="PUT", chunked=False):
    """A request that declares `declared` bytes (or is chunked with no last chunk), sends `sent`, then drops
    the connection."""
    u = urlparse(url)
    length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {declared}"
    if chunked:
        sent = f"{len(sent):x}\r\n".encode() + sent + b"\r\n"
    with socket.create_connection((u.hostname, u.port), timeout=10) as so:
        so.sendall((f"{method} {path} HTTP/1.1\r\nHost: {u.netloc}\r\nAuthorization: Bearer dapi-fuzz\r\n"
                    f"Content-Type: application/octet-stream\r\n{length}\r\n\r\n").encode() + sent)
        time.sleep(0.1)  # let the bytes reach the server before the reset (the cut, not a race with the send)
        so.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


# ---------------------------------------------------------------- 1. Thrift

def _encode(method, args, seqid=0, mtype=TMessageType.CALL):
    """One TCLIService call as the connector sends it (TBinaryProtocol, strict), from the generated args type."""
    buf = TTransport.TMemoryBuffer()
    p = TBinaryProtocol.TBinaryProtocol(buf)
    p.writeMessageBegin(method, mtype, seqid)
    args.write(p)
    p.writeMessageEnd()
    return buf.getvalue()


def _call(method, req, **kw):
    args = getattr(TCLIService, f"{method}_args")(req=req)
    return _encode(method, args, **kw)


def _decode(method, body):
    """The reply's `success` struct, or the TApplicationException the processor answered with."""
    p = TBinaryProtocol.TBinaryProtocol(TTransport.TMemoryBuffer(body))
    name, mtype, _ = p.readMessageBegin()
    if mtype == TMessageType.EXCEPTION:
        x = TApplicationException()
        x.read(p)
        return x
    res = getattr(TCLIService, f"{method}_result")()
    res.read(p)
    return res.success


def _open_session_req(conf=None):
    return ttypes.TOpenSessionReq(client_protocol=ttypes.TProtocolVersion.SPARK_CLI_SERVICE_PROTOCOL_V8,
                                  configuration=conf)


def _with_unknown_fields(method, req):
    """The call with unknown field ids (999: a string, 1000: a list, 1001: a nested struct) written before the
    real ones, as a newer client would: a Thrift reader skips them."""
    buf = TTransport.TMemoryBuffer()
    p = TBinaryProtocol.TBinaryProtocol(buf)
    p.writeMessageBegin(method, TMessageType.CALL, 0)
    p.writeStructBegin(f"{method}_args")
    p.writeFieldBegin("unknown", TType.STRING, 999)
    p.writeString("x" * 1000)
    p.writeFieldEnd()
    p.writeFieldBegin("unknown_list", TType.LIST, 1000)
    p.writeListBegin(TType.I64, 3)
    for i in range(3):
        p.writeI64(i)
    p.writeListEnd()
    p.writeFieldEnd()
    p.writeFieldBegin("unknown_struct", TType.STRUCT, 1001)
    p.writeStructBegin("x")
    p.writeFieldBegin("y", TType.I32, 1)
    p.writeI32(7)
    p.writeFieldEnd()
    p.writeFieldStop()
    p.writeStructEnd()
    p.writeFieldEnd()
    p.writeFieldBegin("req", TType.STRUCT, 1)
    req.write(p)
    p.writeFieldEnd()
    p.writeFieldStop()
    p.writeStructEnd()
    p.writeMessageEnd()
    return buf.getvalue()


def _random_handle():
    return ttypes.THandleIdentifier(guid=os.urandom(16), secret=os.urandom(16))


@pytest.fixture
def wh(w):
    return w.warehouses.create(name=unique("wh"), cluster_size="Small").id


def _connect(url, wh):
    path = f"/sql/1.0/warehouses/{wh}"
    return sql.connect(server_hostname=urlparse(url).netloc, http_path=path, access_token="dev",
                       _connection_uri=url + path, enable_telemetry=False)


def test_fuzz_thrift(url, wh):
    rng = random.Random(f"{SEED}:thrift")
    problems, statuses, t0 = [], {}, time.monotonic()
    s = requests.Session()
    s.headers.update({**H, "Content-Type": "application/x-thrift"})
    paths = [f"/sql/1.0/warehouses/{wh}", f"/sql/protocolv1/o/0/{wh}"]

    def post(label, body, method=None, path=None):
        """One call; returns the decoded reply (a struct or a TApplicationException) when there is one."""
        where = f"thrift [{label}]"
        try:
            r = s.post(url + (path or rng.choice(paths)), data=body, timeout=TIMEOUT)
        except requests.RequestException as e:
            problems.append(f"{where}: no answer ({type(e).__name__}: {e})")
            return None
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        _check_http(problems, where, r)
        if r.status_code == 200:
            if r.headers.get("content-type", "").split(";")[0] != "application/x-thrift":
                problems.append(f"{where}: 200 but content-type {r.headers.get('content-type')}")
            if method:
                try:
                    return _decode(method, r.content)
                except Exception as e:  # noqa: BLE001  (any decoding failure is a finding)
                    problems.append(f"{where}: 200 but not a {method} reply: {e!r} {r.content[:100]!r}")
        return None

    def ok(reply):
        return isinstance(reply, ttypes.TOpenSessionResp) and reply.status.statusCode == ttypes.TStatusCode.SUCCESS_STATUS

    def error_reply(label, reply):
        """A call that must be refused: a TStatus error or a TApplicationException, not a success."""
        if isinstance(reply, TApplicationException):
            return
        st = getattr(reply, "status", None)
        if st is None or st.statusCode not in (ttypes.TStatusCode.ERROR_STATUS,
                                               ttypes.TStatusCode.INVALID_HANDLE_STATUS):
            problems.append(f"thrift [{label}]: expected an error status, got {reply!r}"[:400])
        elif not st.errorMessage:
            problems.append(f"thrift [{label}]: error status without errorMessage")

    valid_open = _call("OpenSession", _open_session_req())

    # Random bytes, including empty and lengths around the message header.
    for n in [0, 1, 4, 8, 12] + [rng.randrange(13, 5000) for _ in range(6)]:
        post(f"random_{n}", bytes(rng.getrandbits(8) for _ in range(n)))
    # A valid OpenSession cut at every few bytes, then with garbage or 1 MiB after it.
    for cut in sorted(set([1, 3, 4, 7, 11, len(valid_open) - 1] + rng.sample(range(1, len(valid_open)), 4))):
        post(f"truncated_at_{cut}", valid_open[:cut])
    post("trailing_garbage", valid_open + os.urandom(64), "OpenSession")
    post("trailing_1MiB", valid_open + b"\x00" * (1 << 20), "OpenSession")
    # A string length that claims 2 GiB (the method name's, then a configuration value's).
    post("method_name_len_2GiB", valid_open[:4] + struct.pack(">i", 0x7FFFFFF0) + valid_open[8:])
    big_conf = _call("OpenSession", _open_session_req({"k": "v"}))
    i = big_conf.rfind(b"\x00\x00\x00\x01v")
    post("conf_value_len_2GiB", big_conf[:i] + struct.pack(">i", 0x7FFFFFF0) + big_conf[i + 4:])
    # A map that claims 2^31-1 entries.
    j = big_conf.find(b"\x0b\x0b\x00\x00\x00\x01")
    post("map_size_2G", big_conf[:j + 2] + struct.pack(">i", 0x7FFFFFFF) + big_conf[j + 6:])
    # Random byte flips in a valid message.
    for k in range(8):
        b = bytearray(valid_open)
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(len(b))] = rng.getrandbits(8)
        post(f"flipped_{k}", bytes(b))
    # Wrong message types and unknown methods.
    for mtype in (TMessageType.REPLY, TMessageType.EXCEPTION, TMessageType.ONEWAY, 99):
        post(f"message_type_{mtype}", _call("OpenSession", _open_session_req(), mtype=mtype))
    post("unknown_method", _encode("NoSuchMethod", TCLIService.OpenSession_args(req=_open_session_req())))
    post("unversioned_header", b"\x00\x00\x00\x0bOpenSession\x01\x00\x00\x00\x00\x00")
    # Huge strings and maps in otherwise valid structs; unknown field ids.
    post("conf_10000_entries", _call("OpenSession", _open_session_req({f"k{n}": "v" * 10 for n in range(10000)})),
         "OpenSession")
    post("conf_value_2MiB", _call("OpenSession", _open_session_req({"spark.x": "v" * (2 << 20)})), "OpenSession")
    r = post("unknown_field_ids", _with_unknown_fields("OpenSession", _open_session_req()), "OpenSession")
    if not ok(r):
        problems.append(f"thrift [unknown_field_ids]: an OpenSession with unknown fields was not opened: {r!r}"[:300])

    # A session, then garbage on it, hostile SQL, handles that do not exist and a closed session's.
    opened = post("open", valid_open, "OpenSession", paths[0])
    if not ok(opened):
        pytest.fail(f"OpenSession failed: {opened!r}\n" + "\n".join(problems))
    sh = opened.sessionHandle
    post("garbage_after_open", os.urandom(200), None, paths[0])

    def execute(label, stmt, handle=None, conf=None):
        return post(label, _call("ExecuteStatement", ttypes.TExecuteStatementReq(
            sessionHandle=handle or sh, statement=stmt, confOverlay=conf, runAsync=False)), "ExecuteStatement",
            paths[0])

    hostile = ["SELECT 'a''b\"c`d'", "SELECT '\x00'", "SELECT 1\x00; DROP TABLE x", "SELECT `", "'", "\"",
               "SELECT '" + "x" * (1 << 20) + "'", "SELECT 1 -- \u202e\udcff".encode("utf-8", "surrogatepass")
               .decode("utf-8", "replace"), "", ";;;", "SELECT " + "(" * 5000 + "1" + ")" * 5000]
    for n, stmt in enumerate(hostile):
        rep = execute(f"hostile_sql_{n}", stmt)
        if isinstance(rep, ttypes.TExecuteStatementResp) and rep.status.statusCode == ttypes.TStatusCode.ERROR_STATUS \
                and not rep.status.errorMessage:
            problems.append(f"thrift [hostile_sql_{n}]: error status without errorMessage")
    execute("conf_overlay_huge", "SELECT 1", conf={"k" * 1000: "v" * (1 << 20)})
    ghost = ttypes.TSessionHandle(sessionId=_random_handle())
    error_reply("unknown_session_execute", execute("unknown_session_execute", "SELECT 1", ghost))
    ghost_op = ttypes.TOperationHandle(operationId=_random_handle(), operationType=ttypes.TOperationType.EXECUTE_STATEMENT,
                                       hasResultSet=True)
    for m, req in [("FetchResults", ttypes.TFetchResultsReq(operationHandle=ghost_op, orientation=0, maxRows=10)),
                   ("GetOperationStatus", ttypes.TGetOperationStatusReq(operationHandle=ghost_op)),
                   ("CancelOperation", ttypes.TCancelOperationReq(operationHandle=ghost_op)),
                   ("CloseOperation", ttypes.TCloseOperationReq(operationHandle=ghost_op)),
                   ("GetResultSetMetadata", ttypes.TGetResultSetMetadataReq(operationHandle=ghost_op)),
                   ("GetTables", ttypes.TGetTablesReq(sessionHandle=ghost)),
                   ("CloseSession", ttypes.TCloseSessionReq(sessionHandle=ghost))]:
        rep = post(f"unknown_handle_{m}", _call(m, req), m, paths[0])
        if m not in ("CancelOperation", "CloseOperation", "CloseSession"):
            error_reply(f"unknown_handle_{m}", rep)
    # A statement's handle, then its session closed: the handle and the session are gone.
    rep = execute("before_close", "SELECT 1")
    op = getattr(rep, "operationHandle", None)
    post("close_session", _call("CloseSession", ttypes.TCloseSessionReq(sessionHandle=sh)), "CloseSession", paths[0])
    error_reply("closed_session_execute", execute("closed_session_execute", "SELECT 1"))
    if op is not None:
        error_reply("closed_session_fetch", post("closed_session_fetch", _call("FetchResults", ttypes.TFetchResultsReq(
            operationHandle=op, orientation=0, maxRows=10)), "FetchResults", paths[0]))
    post("close_session_twice", _call("CloseSession", ttypes.TCloseSessionReq(sessionHandle=sh)), "CloseSession",
         paths[0])
    # A list of 100,000 entries; a call whose HTTP body is cut (declared length, then chunked).
    post("table_types_100k", _call("GetTables", ttypes.TGetTablesReq(
        sessionHandle=ghost, tableTypes=[f"T{n}" for n in range(100000)])), "GetTables", paths[0])
    _cut_upload(url, paths[0], 1 << 20, valid_open, method="POST")
    _cut_upload(url, paths[0], 0, valid_open[:20], method="POST", chunked=True)
    # The door itself: an unknown warehouse, a GET, the wrong content type.
    post("unknown_warehouse", valid_open, None, "/sql/1.0/warehouses/nope%00x")
    r = requests.get(url + paths[0], headers=H, timeout=TIMEOUT)
    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
    _check_http(problems, "thrift [GET]", r)
    r = requests.post(url + paths[0], headers={**H, "Content-Type": "application/json"}, data=b'{"a":1}',
                      timeout=TIMEOUT)
    _check_http(problems, "thrift [json body]", r)

    assert _healthy(url), "server does not answer /_minilake/health after the Thrift fuzz"
    # A real connector session still works.
    with _connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT 41 + 1 AS n")
        assert c.fetchone().n == 42
    print(f"\nfuzz thrift: {time.monotonic() - t0:.1f}s, statuses {dict(sorted(statuses.items()))}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:80])


# ---------------------------------------------------------------- 2. Spark Connect gRPC door

# Node's HTTP/2 client, one connection per case: the calls in JSON on stdin, one JSON answer per case on
# stdout ({status, grpcStatus, grpcMessage, error, ms}). A case may cut its connection after part of its body.
NODE_GRPC = r"""
const http2 = require('node:http2');
const port = Number(process.argv[1]);
const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
// A raw case: its bytes on a plain TCP connection, read until the server closes it or 500 ms pass.
function raw(c) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const so = require('node:net').connect(port, '127.0.0.1');
    let got = 0;
    const done = (closed) => { clearTimeout(timer); so.destroy(); resolve({ label: c.label, got, closed, ms: Date.now() - t0 }); };
    const timer = setTimeout(() => done(false), 500);
    so.on('error', () => done(true));
    so.on('data', (d) => { got += d.length; });
    so.on('end', () => done(true));
    so.write(Buffer.from(c.raw, 'hex'));
  });
}
function one(c) {
  if (c.raw) return raw(c);
  return new Promise((resolve) => {
    const t0 = Date.now();
    const out = { label: c.label };
    const done = (extra) => { Object.assign(out, extra, { ms: Date.now() - t0 }); clearTimeout(timer); try { session.destroy(); } catch {} resolve(out); };
    const timer = setTimeout(() => done({ error: 'timeout' }), c.timeoutMs || 8000);
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', (e) => done({ error: 'session: ' + e.code }));
    let req;
    try {
      req = session.request({ ':method': c.method || 'POST', ':path': c.path, ...c.headers }, { endStream: false });
    } catch (e) { return done({ error: 'client: ' + (e.code || e.message) }); }
    const meta = {};
    req.on('response', (h) => { meta.status = h[':status']; if (h['grpc-status'] !== undefined) { meta.grpcStatus = Number(h['grpc-status']); meta.grpcMessage = h['grpc-message']; } });
    req.on('trailers', (h) => { if (h['grpc-status'] !== undefined) { meta.grpcStatus = Number(h['grpc-status']); meta.grpcMessage = h['grpc-message']; } });
    req.on('data', () => {});
    req.on('error', (e) => done({ ...meta, error: 'stream: ' + e.code }));
    req.on('close', () => done({ ...meta, rstCode: req.rstCode }));
    const body = Buffer.from(c.body || '', 'hex');
    if (c.cut) { req.write(body, () => setTimeout(() => done({ ...meta, cut: true }), 50)); }
    else req.end(body);
  });
}
const probe = { label: 'probe', path: '/spark.connect.SparkConnectService/Config',
  headers: { 'content-type': 'application/grpc', te: 'trailers', 'x-databricks-cluster-id': '0000-probe' }, body: '0000000000' };
// After each case a new connection's call is answered (an unknown cluster: NOT_FOUND from MiniLake).
(async () => { const res = []; for (const c of cases) { const r = await one(c); if (c.probe) r.probe = await one(probe); res.push(r); }
  process.stdout.write(JSON.stringify(res)); })();
"""

SERVICE = "/spark.connect.SparkConnectService/"
GRPC = {"content-type": "application/grpc", "te": "trailers"}


def _grpc_calls(port, cases):
    p = subprocess.run(["node", "-e", NODE_GRPC, str(port)], input=json.dumps(cases).encode(),
                       capture_output=True, timeout=30 + 10 * len(cases))
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    return json.loads(p.stdout)


def _frame(msg, compressed=0, claim=None):
    return bytes([compressed]) + struct.pack(">I", len(msg) if claim is None else claim) + msg


def _served(port):
    """A new connection gets a gRPC answer (an unknown cluster: NOT_FOUND, from MiniLake, no Spark)."""
    [r] = _grpc_calls(port, [{"label": "probe", "path": SERVICE + "Config",
                              "headers": {**GRPC, "x-databricks-cluster-id": "0000-probe"}, "body": _frame(b"").hex()}])
    return r.get("grpcStatus") == 5, r


PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def _h2frame(ftype, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


SETTINGS = _h2frame(4, 0, 0, b"")


def _hpack_literal(name, value):
    """A header as 'literal without indexing, new name', no Huffman: enough HPACK to send any header."""
    def s(b):
        assert len(b) < 127
        return bytes([len(b)]) + b
    return b"\x00" + s(name.encode()) + s(value.encode())


def _headers_block(path, extra=()):
    hs = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
          ("content-type", "application/grpc"), ("te", "trailers"), *extra]
    return b"".join(_hpack_literal(k, v) for k, v in hs)


@pytest.fixture
def sc_port(server):
    port = getattr(server, "spark_connect_url", None)
    if not port:
        pytest.skip("this server serves no Spark Connect port")
    return int(port.rsplit(":", 1)[1])


def test_fuzz_spark_connect_door(url, w, sc_port):
    rng = random.Random(f"{SEED}:grpc")
    problems, t0 = [], time.monotonic()
    ok, r = _served(sc_port)
    assert ok, f"the Spark Connect door does not answer an unknown cluster with NOT_FOUND: {r}"

    # -- malformed HTTP/2 on raw sockets: the server answers or closes; a new connection is served after.
    hb = _headers_block(SERVICE + "ExecutePlan", [("x-databricks-cluster-id", "0000-nope")])
    raw_cases = [
        ("random_bytes", os.urandom(rng.randrange(1, 2000))),
        ("http1_request", b"POST /spark.connect.SparkConnectService/Config HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("bad_preface", b"PRI * HTTP/1.1\r\n\r\nXX\r\n\r\n" + SETTINGS),
        ("tls_garbage", b"\x16\x03\x01\x00\x10" + os.urandom(16)),
        ("frame_too_large", PREFACE + SETTINGS + _h2frame(0, 0, 1, b"x" * 20000)),
        ("data_on_stream_0", PREFACE + SETTINGS + _h2frame(0, 0, 0, b"abc")),
        ("headers_bad_hpack", PREFACE + SETTINGS + _h2frame(1, 0x4, 1, b"\xff\xff\xff\xff\xff\x7f")),
        ("headers_even_stream", PREFACE + SETTINGS + _h2frame(1, 0x5, 2, hb)),
        ("settings_bad_value", PREFACE + _h2frame(4, 0, 0, struct.pack(">HI", 2, 7))),
        ("settings_bad_length", PREFACE + _h2frame(4, 0, 0, b"\x00\x01\x02")),
        ("window_update_zero", PREFACE + SETTINGS + _h2frame(8, 0, 0, struct.pack(">I", 0))),
        ("rst_idle_stream", PREFACE + SETTINGS + _h2frame(3, 0, 7, struct.pack(">I", 8))),
        ("unknown_frame_type", PREFACE + SETTINGS + _h2frame(0xEE, 0, 0, os.urandom(30))),
        ("ping_flood", PREFACE + SETTINGS + b"".join(_h2frame(6, 0, 0, struct.pack(">Q", n)) for n in range(2000))),
        ("continuation_without_headers", PREFACE + SETTINGS + _h2frame(9, 0x4, 1, hb)),
        ("headers_then_cut", PREFACE + SETTINGS + _h2frame(1, 0x4, 1, hb) + _h2frame(0, 0, 1, _frame(b"x", claim=99))),
        ("headers_no_end_headers", PREFACE + SETTINGS + _h2frame(1, 0, 1, hb[:10])),
        ("preface_only_half", PREFACE[:10]),
    ]
    for res in _grpc_calls(sc_port, [{"label": label, "raw": data.hex(), "probe": True} for label, data in raw_cases]):
        if res["probe"].get("grpcStatus") != 5:
            problems.append(f"raw [{res['label']}]: no new connection served afterwards: {res['probe']}")

    # -- the same bytes at MiniLake's own port, whose first byte 0x16 hands a connection to its TLS door: REST
    # is still served after each.
    u = urlparse(url)
    for label, data in raw_cases:
        try:
            with socket.create_connection((u.hostname, u.port), timeout=5) as so:
                so.sendall(data)
                so.settimeout(0.3)
                try:
                    so.recv(65536)
                except (socket.timeout, OSError):
                    pass
        except OSError:
            pass
        if not _healthy(url):
            problems.append(f"main port raw [{label}]: /_minilake/health not answered afterwards")

    # -- gRPC calls through Node's client, every one refused by MiniLake itself.
    cluster = w.clusters.create(cluster_name=unique("c"), spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge",
                                num_workers=0).cluster_id
    good = _frame(b"\x0a\x03abc")  # a field 1 string: any request's session_id
    cases = [
        ("unknown_service", "/no.Such/Method", {"x-databricks-cluster-id": cluster}, good, {12}),
        ("unknown_method", SERVICE + "NoSuchMethod", {"x-databricks-cluster-id": "0000-x"}, good, None),
        ("root_path", "/", {}, good, {12}),
        ("long_path", "/" + "a" * 8000, {}, good, {12}),
        ("traversal_path", "/../spark.connect.SparkConnectService/Config", {}, good, {12}),
        ("garbage_cluster_id", SERVICE + "ExecutePlan", {"x-databricks-cluster-id": "'; DROP\"`../..%00"}, good, {5}),
        ("long_cluster_id", SERVICE + "ExecutePlan", {"x-databricks-cluster-id": "c" * 6000}, good, {5}),
        ("unicode_cluster_id", SERVICE + "Config", {"x-databricks-cluster-id": "\u00e9\u00fc"}, good, {5}),
        ("not_running_cluster", SERVICE + "ExecutePlan", {"x-databricks-cluster-id": cluster}, good, {9, 14}),
        ("garbage_auth", SERVICE + "Config", {"x-databricks-cluster-id": "0000-x", "authorization": "Basic !!!"},
         good, {5, 16}),
        ("huge_auth", SERVICE + "Config", {"x-databricks-cluster-id": "0000-x", "authorization": "Bearer " + "t" * 6000},
         good, {5, 16}),
        ("prefix_longer_than_body", SERVICE + "ExecutePlan", {"x-databricks-cluster-id": cluster},
         _frame(b"abc", claim=1 << 20), {9, 14}),
        ("compressed_flag", SERVICE + "ExecutePlan", {"x-databricks-cluster-id": cluster, "grpc-encoding": "gzip"},
         _frame(b"\x1f\x8b garbage", compressed=1), {9, 14}),
        ("truncated_frame", SERVICE + "AnalyzePlan", {"x-databricks-cluster-id": cluster}, b"\x00\x00\x00", {9, 14}),
        ("protobuf_garbage", SERVICE + "AnalyzePlan", {"x-databricks-cluster-id": cluster},
         _frame(bytes(rng.getrandbits(8) for _ in range(500))), {9, 14}),
        ("body_4MiB", SERVICE + "AddArtifacts", {"x-databricks-cluster-id": cluster}, _frame(b"\x00" * (4 << 20)),
         {9, 14}),
        ("grpc_json", SERVICE + "Config", {"x-databricks-cluster-id": "0000-x", "content-type": "application/grpc+json"},
         b"{}", {5}),
    ]
    calls = []
    for label, path, hdrs, body, _ in cases:
        c = {"label": label, "path": path, "headers": {**GRPC, **hdrs}, "body": (body or b"").hex(), "probe": True}
        calls.append(c)
    calls.append({"label": "not_grpc", "path": SERVICE + "Config", "headers": {"content-type": "application/json"},
                  "body": b"{}".hex(), "probe": True})
    calls.append({"label": "get", "method": "GET", "path": SERVICE + "Config", "headers": {}, "body": "", "probe": True})
    calls.append({"label": "cut_mid_body", "path": SERVICE + "AddArtifacts",
                  "headers": {**GRPC, "x-databricks-cluster-id": cluster}, "body": _frame(b"x" * 1000, claim=100000)
                  .hex(), "cut": True, "probe": True})
    expected = {c[0]: c[4] for c in cases}
    for res in _grpc_calls(sc_port, calls):
        label = res["label"]
        if res.get("error") == "timeout":
            problems.append(f"grpc [{label}]: no answer in 8 s: {res}")
        elif label == "cut_mid_body":
            pass
        elif label in ("not_grpc", "get"):
            if str(res.get("status")) != "415":
                problems.append(f"grpc [{label}]: expected HTTP 415, got {res}")
        elif label in ("long_path", "long_cluster_id", "huge_auth") and res.get("error"):
            pass  # a header block over the server's limit may be refused at the HTTP/2 level
        elif res.get("grpcStatus") is None:
            problems.append(f"grpc [{label}]: no gRPC status: {res}")
        elif res["grpcStatus"] in (0, 2, 13):
            problems.append(f"grpc [{label}]: status {res['grpcStatus']} ({res.get('grpcMessage')})")
        elif expected.get(label) and res["grpcStatus"] not in expected[label]:
            problems.append(f"grpc [{label}]: expected one of {expected[label]}, got {res}")
        if res["probe"].get("grpcStatus") != 5:
            problems.append(f"grpc [{label}]: no new connection served afterwards: {res['probe']}")
    assert _healthy(url), "server does not answer /_minilake/health after the gRPC fuzz"
    print(f"\nfuzz spark connect: {len(raw_cases)} raw + {len(calls)} gRPC cases, {time.monotonic() - t0:.1f}s")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:80])


# ---------------------------------------------------------------- 3. Binary bodies

@pytest.fixture
def volume(w):
    catalog = unique("fzc")
    w.catalogs.create(name=catalog)
    w.volumes.create(catalog_name=catalog, schema_name="default", name="vol", volume_type=VolumeType.MANAGED)
    return f"/Volumes/{catalog}/default/vol"


def test_fuzz_binary_bodies(url, volume):
    rng = random.Random(f"{SEED}:binary")
    problems, t0 = [], time.monotonic()
    s = requests.Session()
    s.headers.update(H)
    files = url + "/api/2.0/fs/files"
    seen = []

    def req(label, method, path, **kw):
        try:
            r = s.request(method, url + path, timeout=60, **kw)
        except requests.RequestException as e:
            problems.append(f"{label}: no answer ({type(e).__name__}: {e})")
            return None
        seen.append(f"{label}={r.status_code}")
        _check_http(problems, label, r)
        return r

    def exact_or_absent(label, path, acknowledged, data):
        g = s.get(files + path, timeout=60)
        if acknowledged:
            if g.status_code != 200 or hashlib.sha256(g.content).digest() != hashlib.sha256(data).digest():
                problems.append(f"{label}: acknowledged but reads back {g.status_code}, {len(g.content)} bytes "
                                f"(wrote {len(data)})")
        elif g.status_code != 404:
            _check_http(problems, label + " read-back", g)
            if g.status_code == 200:
                problems.append(f"{label}: refused but a file of {len(g.content)} bytes is there")

    # Files API bodies: random sizes, empty, 20 MiB; each reads back exactly.
    sizes = [0, 1, rng.randrange(2, 70000), 20 << 20]
    for n in sizes:
        data = os.urandom(n)
        p = f"{volume}/f_{n}.bin"
        r = req(f"files put {n}", "PUT", f"/api/2.0/fs/files{p}?overwrite=true", data=data,
                headers={"Content-Type": "application/octet-stream"})
        exact_or_absent(f"files put {n}", p, r is not None and r.status_code < 300, data)

    # Cut uploads: a new file is not there; an existing file keeps its old bytes.
    p = f"{volume}/cut_new.bin"
    _cut_upload(url, "/api/2.0/fs/files" + p + "?overwrite=true", 1 << 20, os.urandom(64 << 10))
    exact_or_absent("cut upload (new file)", p, False, b"")
    p = f"{volume}/cut_new_chunked.bin"
    _cut_upload(url, "/api/2.0/fs/files" + p + "?overwrite=true", 0, os.urandom(64 << 10), chunked=True)
    exact_or_absent("cut chunked upload (new file)", p, False, b"")
    p = f"{volume}/cut_existing.bin"
    old = os.urandom(1000)
    assert s.put(files + p + "?overwrite=true", data=old, timeout=30).status_code == 204
    _cut_upload(url, "/api/2.0/fs/files" + p + "?overwrite=true", 1 << 20, os.urandom(64 << 10))
    _cut_upload(url, "/api/2.0/fs/files" + p + "?overwrite=true", 0, os.urandom(64 << 10), chunked=True)
    exact_or_absent("cut upload (existing file)", p, True, old)
    listed = s.get(files.replace("/files", "/directories") + volume, timeout=30).json().get("contents", [])
    stray = [e["name"] for e in listed if e["name"] not in {f"f_{n}.bin" for n in sizes} | {"cut_existing.bin"}]
    if stray:
        problems.append(f"cut uploads left entries in the volume: {stray}")

    # Hostile paths: refused, or a file at exactly that path inside the volume.
    for label, name in [("dotdot", "../../../../etc/fuzz"), ("dotdot_enc", "%2e%2e/%2e%2e/x"), ("nul", "a%00b"),
                        ("long_name", "n" * 300), ("long_path", "/".join(["d" * 50] * 100)),
                        ("quotes", "a'b%22c%60d"), ("unicode", "%E5%90%8D%F0%9F%99%82"), ("bad_utf8", "%FF%FE"),
                        ("empty_segments", "a//b///c"), ("dot", "./x")]:
        data = os.urandom(100)
        r = req(f"files hostile {label}", "PUT", f"/api/2.0/fs/files{volume}/{name}?overwrite=true", data=data)
        if r is not None and r.status_code < 300:
            g = s.get(f"{files}{volume}/{name}", timeout=30)
            if g.status_code != 200 or g.content != data:
                problems.append(f"files hostile {label}: acknowledged but reads back {g.status_code}")
    if os.path.exists("/etc/fuzz"):
        problems.append("a Files API upload escaped to /etc/fuzz")

    # DBFS: bad base64, bad handles, bad offsets.
    dp = "/fuzz_" + unique("d")
    req("dbfs put bad base64", "POST", "/api/2.0/dbfs/put", json={"path": dp + "/a", "contents": "!!not base64~~",
                                                                   "overwrite": True})
    req("dbfs put non-string", "POST", "/api/2.0/dbfs/put", json={"path": dp + "/a", "contents": {"x": 1}})
    r = req("dbfs create", "POST", "/api/2.0/dbfs/create", json={"path": dp + "/b", "overwrite": True})
    handle = r.json()["handle"] if r is not None and r.status_code == 200 else None
    if handle is not None:
        req("dbfs add-block bad base64", "POST", "/api/2.0/dbfs/add-block", json={"handle": handle, "data": "%%%"})
        req("dbfs add-block ok", "POST", "/api/2.0/dbfs/add-block",
            json={"handle": handle, "data": base64.b64encode(b"hello").decode()})
        req("dbfs close", "POST", "/api/2.0/dbfs/close", json={"handle": handle})
        r = req("dbfs add-block closed", "POST", "/api/2.0/dbfs/add-block",
                json={"handle": handle, "data": base64.b64encode(b"more").decode()})
        if r is not None and r.status_code < 400:
            problems.append("dbfs add-block on a closed handle was accepted")
        g = s.get(url + "/api/2.0/dbfs/read", params={"path": dp + "/b"}, timeout=30).json()
        if base64.b64decode(g.get("data", "")) != b"hello":
            problems.append(f"dbfs file after close holds {g!r}"[:200])
    for h in (999999999, -1, "abc", 2 ** 70):
        r = req(f"dbfs add-block handle {h}", "POST", "/api/2.0/dbfs/add-block",
                json={"handle": h, "data": base64.b64encode(b"x").decode()})
        if r is not None and r.status_code < 400:
            problems.append(f"dbfs add-block on handle {h} was accepted")
    for off, ln in [(-1, 10), (2 ** 62, 10), (0, -5), (0, 2 ** 40), ("x", 1), (10 ** 30, 1)]:
        req(f"dbfs read offset={off} length={ln}", "GET", "/api/2.0/dbfs/read",
            params={"path": dp + "/b", "offset": off, "length": ln})

    # Workspace import with a content that is not base64.
    folder = "/" + unique("fuzz_ws")
    req("workspace mkdirs", "POST", "/api/2.0/workspace/mkdirs", json={"path": folder})
    for content in ["!!!", "YQ", "\x00\xff", "a" * 3 + "=", "====", "cHJpbnQoMSk=" + "!" * 10]:
        ws = f"{folder}/{unique('nb')}"
        r = req(f"workspace import {content[:5]!r}", "POST", "/api/2.0/workspace/import",
                json={"path": ws, "content": content, "format": "SOURCE", "language": "PYTHON", "overwrite": True})
        if r is not None and r.status_code >= 400:
            g = s.get(url + "/api/2.0/workspace/get-status", params={"path": ws}, timeout=30)
            if g.status_code != 404:
                problems.append(f"workspace import refused ({r.status_code}) but {ws} is there: {g.status_code}")

    assert _healthy(url), "server does not answer /_minilake/health after the binary fuzz"
    print(f"\nfuzz binary bodies: {time.monotonic() - t0:.1f}s: " + ", ".join(seen))
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:80])
