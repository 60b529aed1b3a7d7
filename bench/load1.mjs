// One keep-alive HTTP client, requests back to back; prints {"p50": ms, "p99": ms, "errors": n} as JSON.
// usage: node bench/load1.mjs URL N CONCURRENCY(ignored: always 1) METHOD [BODY]
import http from 'node:http';

const [url, n = '1000', , method = 'GET', body] = process.argv.slice(2);
const u = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const headers = { authorization: 'Bearer dev', 'content-type': 'application/json' };
const times = [];
let errors = 0;
const once = () =>
  new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, agent, headers },
      (res) => {
        if (res.statusCode >= 400) errors++;
        res.resume();
        res.on('end', () => {
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
          resolve();
        });
      },
    );
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(body);
  });
for (let i = 0; i < Number(n); i++) await once();
agent.destroy();
times.sort((a, b) => a - b);
const at = (q) => +(times[Math.floor(times.length * q)] ?? 0).toFixed(3);
console.log(JSON.stringify({ p50: at(0.5), p99: at(0.99), errors }));
