/**
 * HTTPS for clients that insist on it (the @databricks/sql driver hard-codes https): a given certificate and
 * key (MINILAKE_TLS_CERT / MINILAKE_TLS_KEY), or a self-signed one for localhost and 127.0.0.1 generated once
 * under `<dataDir>/tls/` and reused from there (point clients' CA setting at `<dataDir>/tls/cert.pem`).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface TlsConfig {
  certFile?: string;
  keyFile?: string;
  /**
   * Where a generated certificate is kept for reuse (`<MINILAKE_CACHE>/tls`): generating a key is ~0.2 s of
   * loading and CPU, and a plain-http server that also accepts TLS (for Databricks Connect) would pay it at
   * every start. One local certificate per machine, copied into each data dir, as local CAs (mkcert) do.
   */
  cacheDir?: string;
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate is, for the start-up line and for clients' CA setting. */
  certFile: string;
}

/** The cached key and certificate (see TlsConfig.cacheDir). */
const CACHED = 'localhost-ca.json';

/** Written under a temporary name and renamed: a client that sees the file never reads half a certificate. */
async function writeWhole(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

export async function tlsMaterial(config: TlsConfig, dataDir: string): Promise<TlsMaterial> {
  if (config.certFile && config.keyFile)
    return {
      cert: await readFile(config.certFile, 'utf8'),
      key: await readFile(config.keyFile, 'utf8'),
      certFile: config.certFile,
    };
  const dir = path.join(dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8'), certFile };
  } catch {
    // Not generated yet.
  }
  if (config.cacheDir) {
    try {
      const { cert, key } = JSON.parse(await readFile(path.join(config.cacheDir, CACHED), 'utf8')) as {
        cert: string;
        key: string;
      };
      await mkdir(dir, { recursive: true });
      await writeFile(keyFile, key, { mode: 0o600 });
      await writeWhole(certFile, cert);
      return { cert, key, certFile };
    } catch {
      // None cached yet: generated below.
    }
  }
  // Loaded only when a certificate must be generated (~0.2 s of module loading).
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000),
    extensions: [
      // Its own CA as well as the server's certificate: clients trust it as a root (`--cacert`,
      // GRPC_DEFAULT_SSL_ROOTS_FILE_PATH). gRPC's TLS (BoringSSL) refuses a root whose keyUsage lacks
      // keyCertSign ("unable to get local issuer certificate"), so the usage says it may sign.
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await mkdir(dir, { recursive: true });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeWhole(certFile, pems.cert);
  if (config.cacheDir) {
    try {
      await mkdir(config.cacheDir, { recursive: true, mode: 0o700 });
      // Key and certificate in one file, written under a temporary name and renamed: concurrent starts
      // never read half a file or a key with another start's certificate.
      const tmp = path.join(config.cacheDir, `${CACHED}.${process.pid}.${Date.now()}`);
      await writeFile(tmp, JSON.stringify({ cert: pems.cert, key: pems.private }), { mode: 0o600 });
      await rename(tmp, path.join(config.cacheDir, CACHED));
    } catch {
      // A read-only cache only costs the next start a new key.
    }
  }
  return { cert: pems.cert, key: pems.private, certFile };
}
