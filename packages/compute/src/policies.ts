/**
 * Cluster policies and policy families: a policy's definition is validated (or built from its family plus
 * overrides) and applied to cluster specs by the clusters part of ComputeStore (see policy.ts).
 */
import { alreadyExists, invalidParameter, type Clock, type Collection } from '@minilake/core';
import { POLICY_FAMILIES, type PolicyFamily } from './catalog.js';
import { missingField, policyFamilyNotFound, policyNotFound } from './errors.js';
import { decodeOffset, encodeOffset, hex } from './paging.js';
import { mergeDefinitions, parseDefinition } from './policy.js';

export interface PolicyRecord {
  policy_id: string;
  name: string;
  definition: string;
  description?: string;
  max_clusters_per_user?: number;
  policy_family_id?: string;
  policy_family_definition_overrides?: string;
  libraries?: Record<string, unknown>[];
  creator_user_name: string;
  created_at_timestamp: number;
  is_default: boolean;
}

export interface PolicyInput {
  name?: string | undefined;
  definition?: string | undefined;
  description?: string | undefined;
  max_clusters_per_user?: number | undefined;
  policy_family_id?: string | undefined;
  policy_family_definition_overrides?: string | undefined;
  libraries?: Record<string, unknown>[] | undefined;
}

export class ClusterPolicies {
  constructor(
    private readonly records: Collection<PolicyRecord>,
    private readonly opts: {
      clock: Clock;
      userName: string;
      onDeleted?: ((requestObjectType: 'cluster-policies', id: string) => void) | undefined;
    },
  ) {}

  get(id: string): PolicyRecord | undefined {
    return this.records.get(id);
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  policy(id: string): PolicyRecord {
    const p = this.records.get(id);
    if (!p) throw policyNotFound(id);
    return p;
  }

  private policyDefinition(body: {
    definition?: string | undefined;
    policy_family_id?: string | undefined;
    policy_family_definition_overrides?: string | undefined;
  }): string {
    if (body.policy_family_id) {
      if (body.definition) throw invalidParameter('policy_family_id and definition cannot be used together');
      const fam = this.policyFamily(body.policy_family_id);
      return mergeDefinitions(fam.definition, body.policy_family_definition_overrides);
    }
    if (body.policy_family_definition_overrides)
      throw invalidParameter('policy_family_definition_overrides requires policy_family_id');
    const definition = body.definition ?? '{}';
    parseDefinition(definition);
    return definition;
  }

  createPolicy(body: PolicyInput): string {
    if (!body.name) throw missingField('name');
    this.assertPolicyNameFree(body.name);
    const definition = this.policyDefinition(body);
    const id = hex(16).toUpperCase();
    const p: PolicyRecord = {
      policy_id: id,
      name: body.name,
      definition,
      creator_user_name: this.opts.userName,
      created_at_timestamp: this.opts.clock.now(),
      is_default: false,
    };
    this.assignPolicyFields(p, body);
    this.records.set(id, p);
    return id;
  }

  private assertPolicyNameFree(name: string, except?: string): void {
    for (const p of this.records.values())
      if (p.name === name && p.policy_id !== except)
        throw alreadyExists(`Cluster Policy with name \`${name}\` already exists`);
  }

  private assignPolicyFields(
    p: PolicyRecord,
    body: {
      description?: string | undefined;
      max_clusters_per_user?: number | undefined;
      policy_family_id?: string | undefined;
      policy_family_definition_overrides?: string | undefined;
      libraries?: Record<string, unknown>[] | undefined;
    },
  ): void {
    p.description = body.description;
    p.max_clusters_per_user = body.max_clusters_per_user;
    p.policy_family_id = body.policy_family_id || undefined;
    p.policy_family_definition_overrides = body.policy_family_id
      ? body.policy_family_definition_overrides
      : undefined;
    p.libraries = body.libraries;
  }

  /** Edit is a full replacement of the writable fields. */
  editPolicy(body: PolicyInput & { policy_id: string }): void {
    const p = this.policy(body.policy_id);
    if (!body.name) throw missingField('name');
    this.assertPolicyNameFree(body.name, p.policy_id);
    p.definition = this.policyDefinition(body);
    p.name = body.name;
    this.assignPolicyFields(p, body);
    this.records.set(p.policy_id, p);
  }

  deletePolicy(id: string): void {
    this.policy(id);
    this.records.delete(id);
    this.opts.onDeleted?.('cluster-policies', id);
  }

  getPolicy(id: string) {
    return this.policyWire(this.policy(id));
  }

  private policyWire(p: PolicyRecord) {
    return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));
  }

  listPolicies(sortColumn?: 'POLICY_CREATION_TIME' | 'POLICY_NAME', sortOrder?: 'ASC' | 'DESC') {
    const dir = sortOrder === 'ASC' ? 1 : sortOrder === 'DESC' ? -1 : sortColumn === 'POLICY_NAME' ? 1 : -1;
    return [...this.records.values()]
      .sort((a, b) =>
        sortColumn === 'POLICY_NAME'
          ? a.name.localeCompare(b.name) * dir
          : (a.created_at_timestamp - b.created_at_timestamp || a.name.localeCompare(b.name)) * dir,
      )
      .map((p) => this.policyWire(p));
  }

  policyFamily(id: string): PolicyFamily {
    const f = POLICY_FAMILIES.find((x) => x.policy_family_id === id);
    if (!f) throw policyFamilyNotFound(id);
    return f;
  }

  listPolicyFamilies(maxResults: number | undefined, pageToken: string | undefined) {
    if (maxResults !== undefined && maxResults < 0) throw invalidParameter('max_results must be at least 0');
    const start = pageToken ? decodeOffset(pageToken) : 0;
    const size = maxResults || POLICY_FAMILIES.length;
    const page = POLICY_FAMILIES.slice(start, start + size);
    return {
      policy_families: page,
      ...(start + size < POLICY_FAMILIES.length ? { next_page_token: encodeOffset(start + size) } : {}),
    };
  }
}
