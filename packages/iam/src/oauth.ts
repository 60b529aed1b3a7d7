/**
 * OAuth machine-to-machine for service principals: secrets (the service principal secrets API, which the
 * workspace proxies under /api/2.0/accounts/servicePrincipals/<id>/credentials/secrets) and the
 * client_credentials exchange of /oidc/v1/token. A secret's value is returned once, by create; only its
 * SHA-256 is kept. The access token handed out is an ordinary token of the service principal's (tokens.ts),
 * so it authenticates, expires by the injected clock and is revoked like any other.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { invalidParameter, notFound, type Clock, type Collection } from '@minilake/core';

export interface SecretRecord {
  id: string;
  /** The service principal's SCIM id. */
  service_principal_id: string;
  secret_hash: string;
  create_time: string;
  update_time: string;
  expire_time?: string;
}

const sha = (v: string) => createHash('sha256').update(v).digest('hex');

export class OAuthSecrets {
  constructor(
    private readonly secrets: Collection<SecretRecord>,
    private readonly clock: Clock,
  ) {}

  private info(r: SecretRecord) {
    return {
      id: r.id,
      // Databricks shows the first characters of the secret's hash (never the secret) in lists.
      secret_hash: r.secret_hash.slice(0, 8),
      status: this.expired(r) ? 'EXPIRED' : 'ACTIVE',
      create_time: r.create_time,
      update_time: r.update_time,
      ...(r.expire_time ? { expire_time: r.expire_time } : {}),
    };
  }

  private expired(r: SecretRecord): boolean {
    return r.expire_time !== undefined && Date.parse(r.expire_time) <= this.clock.now();
  }

  /** `lifetime` as Databricks spells it: seconds with an `s` (`"3600s"`); absent: two years, its default. */
  create(servicePrincipalId: string, lifetime: string | undefined) {
    let seconds = 2 * 365 * 24 * 3600;
    if (lifetime !== undefined) {
      const m = /^(\d+)(?:\.\d+)?s$/.exec(lifetime);
      if (!m || Number(m[1]) <= 0)
        throw invalidParameter(
          `lifetime must be a positive duration in seconds such as "3600s", got "${lifetime}".`,
        );
      seconds = Number(m[1]);
    }
    const secret = `dose${randomBytes(20).toString('hex')}`;
    const now = new Date(this.clock.now()).toISOString();
    const r: SecretRecord = {
      id: randomUUID(),
      service_principal_id: servicePrincipalId,
      secret_hash: sha(secret),
      create_time: now,
      update_time: now,
      expire_time: new Date(this.clock.now() + seconds * 1000).toISOString(),
    };
    this.secrets.set(r.id, r);
    return { ...this.info(r), secret };
  }

  list(servicePrincipalId: string) {
    return {
      secrets: [...this.secrets.values()]
        .filter((r) => r.service_principal_id === servicePrincipalId)
        .sort((a, b) => a.create_time.localeCompare(b.create_time))
        .map((r) => this.info(r)),
    };
  }

  delete(servicePrincipalId: string, secretId: string): void {
    const r = this.secrets.get(secretId);
    if (!r || r.service_principal_id !== servicePrincipalId)
      throw notFound(`Secret ${secretId} does not exist for service principal ${servicePrincipalId}.`);
    this.secrets.delete(secretId);
  }

  /** Whether `secret` is a live secret of the service principal (compared in constant time). */
  verify(servicePrincipalId: string, secret: string): boolean {
    const want = Buffer.from(sha(secret), 'hex');
    for (const r of this.secrets.values())
      if (
        r.service_principal_id === servicePrincipalId &&
        !this.expired(r) &&
        timingSafeEqual(Buffer.from(r.secret_hash, 'hex'), want)
      )
        return true;
    return false;
  }
}

/** An OAuth error as RFC 6749 §5.2 shapes it (what the SDKs' token sources parse), not a Databricks error. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

/** client_id / client_secret from HTTP Basic (what the SDKs send) or the form body. */
export function clientCredentials(
  authorization: string | undefined,
  form: Record<string, string>,
): { id: string; secret: string } {
  if (authorization?.toLowerCase().startsWith('basic ')) {
    const raw = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const i = raw.indexOf(':');
    if (i > 0)
      return { id: decodeURIComponent(raw.slice(0, i)), secret: decodeURIComponent(raw.slice(i + 1)) };
  }
  if (form.client_id && form.client_secret) return { id: form.client_id, secret: form.client_secret };
  throw new OAuthError(
    401,
    'invalid_client',
    'Client authentication failed: no client_id and client_secret.',
  );
}
