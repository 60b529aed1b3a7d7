/**
 * Personal access tokens (/api/2.0/token) and token management (/api/2.0/token-management). A value is
 * returned once by create; only its SHA-256 is kept, which is also Databricks' token_id. Expiry follows the
 * injected clock.
 */
import { createHash, randomBytes } from 'node:crypto';
import { invalidParameter, type Clock, type Collection, type Identity } from '@minilake/core';
import { tokenNotFound } from './errors.js';

export interface TokenRecord {
  /** SHA-256 (hex) of the token value. */
  token_id: string;
  comment?: string;
  creation_time: number;
  expiry_time: number;
  scopes?: string[];
  created_by_id: string;
  created_by_username: string;
  owner_id: string;
}

/** What tokens need from the SCIM directory. */
export interface TokenOwners {
  /** The caller's SCIM id (the request's principal; the configured user outside a request). */
  meId(): string;
  /** The caller's user name (a service principal's applicationId). */
  meName(): string;
  servicePrincipalId(applicationId: string): string | undefined;
  userId(userName: string): string | undefined;
}

/** Who a token minted for a job run acts as: the run's `run_as` (a user or a service principal). */
export interface TokenPrincipal {
  userName?: string;
  servicePrincipalName?: string;
}

type Json = Record<string, unknown>;
const hash = (value: string) => createHash('sha256').update(value).digest('hex');

export class TokenStore {
  constructor(
    private readonly tokens: Collection<TokenRecord>,
    private readonly owners: TokenOwners,
    private readonly clock: Clock,
    private readonly identity: Identity,
  ) {}

  private newToken(
    owner: { id: string },
    lifetimeSeconds: number | undefined,
    comment: string | undefined,
    scopes: string[] | undefined,
  ): { value: string; record: TokenRecord } {
    const value = `dapi${randomBytes(16).toString('hex')}`;
    const now = this.clock.now();
    const record: TokenRecord = {
      // Databricks' token_id is the SHA-256 of the token value; it is also all that is kept of the value.
      token_id: hash(value),
      creation_time: now,
      expiry_time: lifetimeSeconds && lifetimeSeconds > 0 ? now + lifetimeSeconds * 1000 : -1,
      created_by_id: this.meId(),
      created_by_username: this.owners.meName(),
      owner_id: owner.id,
    };
    if (comment !== undefined) record.comment = comment;
    if (scopes !== undefined) record.scopes = scopes;
    this.tokens.set(record.token_id, record);
    return { value, record };
  }

  private meId(): string {
    return this.owners.meId();
  }

  private publicInfo(t: TokenRecord): Json {
    const out: Json = {
      token_id: t.token_id,
      creation_time: t.creation_time,
      expiry_time: t.expiry_time,
    };
    if (t.comment !== undefined) out.comment = t.comment;
    if (t.scopes !== undefined) out.scopes = t.scopes;
    return out;
  }

  private managementInfo(t: TokenRecord): Json {
    return {
      ...this.publicInfo(t),
      created_by_id: Number(t.created_by_id),
      created_by_username: t.created_by_username,
      owner_id: Number(t.owner_id),
      workspace_id: Number(this.identity.workspaceId),
    };
  }

  createToken(lifetimeSeconds: number | undefined, comment?: string, scopes?: string[]) {
    const { value, record } = this.newToken({ id: this.meId() }, lifetimeSeconds, comment, scopes);
    return { token_value: value, token_info: this.publicInfo(record) };
  }

  listOwnTokens() {
    const me = this.meId();
    return {
      token_infos: [...this.tokens.values()]
        .filter((t) => t.owner_id === me)
        .sort((a, b) => a.creation_time - b.creation_time)
        .map((t) => this.publicInfo(t)),
    };
  }

  deleteOwnToken(tokenId: string): void {
    const t = this.tokens.get(tokenId);
    if (!t || t.owner_id !== this.meId()) throw tokenNotFound(tokenId);
    this.tokens.delete(tokenId);
  }

  createOboToken(
    applicationId: string,
    lifetimeSeconds: number | undefined,
    comment?: string,
    scopes?: string[],
  ) {
    const spId = this.owners.servicePrincipalId(applicationId);
    if (spId === undefined)
      throw invalidParameter(`Service principal with application ID ${applicationId} does not exist.`);
    const { value, record } = this.newToken({ id: spId }, lifetimeSeconds, comment, scopes);
    return { token_value: value, token_info: this.managementInfo(record) };
  }

  listAllTokens(createdById?: string, createdByUsername?: string) {
    return {
      token_infos: [...this.tokens.values()]
        .filter((t) => createdById === undefined || t.created_by_id === createdById)
        .filter(
          (t) =>
            createdByUsername === undefined ||
            t.created_by_username.toLowerCase() === createdByUsername.toLowerCase(),
        )
        .sort((a, b) => a.creation_time - b.creation_time)
        .map((t) => this.managementInfo(t)),
    };
  }

  getToken(tokenId: string) {
    const t = this.tokens.get(tokenId);
    if (!t) throw tokenNotFound(tokenId);
    return { token_info: this.managementInfo(t) };
  }

  /** PATCH: `comment` and/or `scopes` per the update mask (`*` means both). */
  updateToken(tokenId: string, ownOnly: boolean, token: Record<string, unknown>, updateMask: string) {
    const t = this.tokens.get(tokenId);
    if (!t || (ownOnly && t.owner_id !== this.meId())) throw tokenNotFound(tokenId);
    const fields = updateMask
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean);
    if (fields.length === 0) throw invalidParameter('update_mask must name the fields to update.');
    const next = { ...t };
    for (const f of fields) {
      if (f === '*' || f === 'comment') {
        if (token.comment !== undefined && typeof token.comment !== 'string')
          throw invalidParameter('token.comment must be a string.');
        if (token.comment === undefined) delete next.comment;
        else next.comment = token.comment as string;
      }
      if (f === '*' || f === 'scopes') {
        if (
          token.scopes !== undefined &&
          !(Array.isArray(token.scopes) && token.scopes.every((x) => typeof x === 'string'))
        )
          throw invalidParameter('token.scopes must be a list of strings.');
        if (token.scopes === undefined) delete next.scopes;
        else next.scopes = token.scopes as string[];
      }
      if (f !== '*' && f !== 'comment' && f !== 'scopes')
        throw invalidParameter(`Field ${f} of a token cannot be updated.`);
    }
    this.tokens.set(tokenId, next);
    return this.managementInfo(next);
  }

  deleteToken(tokenId: string): void {
    if (!this.tokens.delete(tokenId)) throw tokenNotFound(tokenId);
  }

  /**
   * A token another service mints for work it runs on someone's behalf (a job run's tasks): owned by that
   * principal (the current user when the principal is unknown), short-lived, listed by the token APIs like
   * any other token, and revoked by the minting service when the work ends (revokeToken).
   */
  mintToken(principal: TokenPrincipal, lifetimeSeconds: number, comment: string) {
    const owner =
      (principal.servicePrincipalName !== undefined
        ? this.owners.servicePrincipalId(principal.servicePrincipalName)
        : principal.userName !== undefined
          ? // A job created by a service principal names it by applicationId as its creator.
            (this.owners.userId(principal.userName) ?? this.owners.servicePrincipalId(principal.userName))
          : undefined) ?? this.meId();
    const { value, record } = this.newToken({ id: owner }, lifetimeSeconds, comment, undefined);
    return { value, tokenId: record.token_id };
  }

  /** Deletes a minted token; one already gone (deleted through the API, a reset) is no error. */
  revokeToken(tokenId: string): void {
    this.tokens.delete(tokenId);
  }

  /** True when `value` is a live token this workspace issued (for embedders that want to check). */
  isIssued(value: string): boolean {
    return this.live(value) !== undefined;
  }

  /** The record of a live token (issued, not deleted, not expired by the injected clock). */
  live(value: string): TokenRecord | undefined {
    const t = this.tokens.get(hash(value));
    return t && (t.expiry_time === -1 || t.expiry_time > this.clock.now()) ? t : undefined;
  }
}
