/**
 * HTTPS for clients that insist on it (the @databricks/sql driver hard-codes https): a given certificate and
 * key (MINILAKE_TLS_CERT / MINILAKE_TLS_KEY), or a self-signed one for localhost and 127.0.0.1 generated once
 * under `<dataDir>/tls/` and reused from there (point clients' CA setting at `<dataDir>/tls/cert.pem`).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface TlsConfig {
  certFile?: string;
  keyFile?: string;
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate is, for the start-up line and for clients' CA setting. */
  certFile: string;
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
  // Loaded only when a certificate must be generated (~0.2 s of module loading).
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
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
  await writeFile(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private, certFile };
}
