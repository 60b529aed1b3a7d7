/**
 * Identity state as one journaled state module (`iam`, version 1): its collections are shared out to three
 * parts, each in its own file: the SCIM directory (directory.ts), object ACLs (permissions.ts) and tokens
 * (tokens.ts). One module keeps the persisted layout (and its version) as it was before the split.
 */
import { CollectionStore, type Clock, type Identity, type Principal, type StateDb } from '@minilake/core';
import { Directory, type GroupRecord, type ServicePrincipalRecord, type UserRecord } from './directory.js';
import { PermissionsStore, type AclRecord } from './permissions.js';
import { OAuthSecrets, type SecretRecord } from './oauth.js';
import { TokenStore, type TokenRecord } from './tokens.js';

export { SCHEMA, type ListQuery } from './directory.js';

export class IamStore extends CollectionStore {
  readonly directory: Directory;
  readonly permissions: PermissionsStore;
  readonly tokens: TokenStore;
  readonly secrets: OAuthSecrets;

  /**
   * `caller` is the request's principal (ServiceContext.principal): tokens created through the Tokens API
   * belong to it. Without authentication it is the configured user, whose SCIM id the directory knows.
   */
  constructor(db: StateDb, clock: Clock, identity: Identity, caller?: () => Principal) {
    super('iam', 1, db);
    const directory = new Directory(
      {
        users: this.collection<UserRecord>('users'),
        groups: this.collection<GroupRecord>('groups'),
        servicePrincipals: this.collection<ServicePrincipalRecord>('service_principals'),
      },
      identity,
    );
    this.directory = directory;
    this.permissions = new PermissionsStore(
      this.collection<AclRecord>('permissions'),
      {
        user: (name) => {
          const u = directory.findUser(name);
          return u && { userName: u.userName, display: u.displayName ?? u.userName };
        },
        hasGroup: (name) => directory.findGroup(name) !== undefined,
        servicePrincipal: (appId) => {
          const s = directory.findServicePrincipal(appId);
          return s && { display: s.displayName ?? s.applicationId };
        },
      },
      () => identity.userName,
    );
    this.tokens = new TokenStore(
      this.collection<TokenRecord>('tokens'),
      {
        meId: () => {
          const p = caller?.();
          return p && p.userName !== identity.userName ? p.id : directory.meId();
        },
        meName: () => caller?.().userName ?? identity.userName,
        servicePrincipalId: (appId) => directory.findServicePrincipal(appId)?.id,
        userId: (userName) => directory.findUser(userName)?.id,
      },
      clock,
      identity,
    );
    this.secrets = new OAuthSecrets(this.collection<SecretRecord>('sp_secrets'), clock);
  }

  /** The principal a live token acts as; undefined for an unknown, deleted or expired token. */
  authenticate(value: string): Principal | undefined {
    const t = this.tokens.live(value);
    return t && this.directory.principalById(t.owner_id);
  }

  protected override onReset(): void {
    this.directory.loaded();
  }

  override restore(snapshot: unknown): void {
    super.restore(snapshot);
    this.directory.loaded(false);
  }
}
