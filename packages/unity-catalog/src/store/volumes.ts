/** Volumes: folders under `<data dir>/volumes/<catalog>/<schema>/<volume>` (MANAGED) or an external path. */
import { mkdir, rm } from 'node:fs/promises';
import { invalidParameter, resolveUnder, uuid } from '@minilake/core';
import { volumeExists, volumeNotFound } from '../errors.js';
import { checkName } from '../names.js';
import type { UcContext } from './context.js';
import { externalLocation } from './locations.js';
import { applyPatch, clean, type VolumeRecord } from './records.js';
import type { Schemas } from './schemas.js';

export class Volumes {
  constructor(
    private readonly ctx: UcContext,
    private readonly schemas: Schemas,
  ) {}

  dir(c: string, s: string, v: string): string {
    return resolveUnder(this.ctx.volumesRoot, `${c}/${s}/${v}`);
  }

  /** Like Databricks' volume answers: no `browse_only`. */
  out(r: VolumeRecord) {
    return clean({
      name: r.name,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      full_name: `${r.catalog_name}.${r.schema_name}.${r.name}`,
      volume_type: r.volume_type,
      storage_location: r.storage_location,
      volume_id: r.volume_id,
      comment: r.comment,
      owner: r.owner,
      metastore_id: this.ctx.metastoreId,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  record(fullName: string): VolumeRecord {
    return this.ctx.objectRecord(this.ctx.c.volumes, fullName, 'volume', volumeNotFound);
  }

  async create(input: {
    name: string;
    catalog_name: string;
    schema_name: string;
    volume_type: 'MANAGED' | 'EXTERNAL';
    storage_location?: string | null;
    comment?: string | null;
  }) {
    const { catalog: c, schema: s } = await this.schemas.resolve(input.catalog_name, input.schema_name);
    const v = checkName('volume', input.name, {
      call: 'CreateVolume',
      field: 'managedcatalog.VolumeInfo.name',
    });
    const full = `${c}.${s}.${v}`;
    const { creating } = this.ctx;
    if (this.ctx.c.volumes.has(full) || creating.has(`volume:${full}`)) throw volumeExists(full);
    creating.add(`volume:${full}`);
    try {
      let location: string;
      if (input.volume_type === 'EXTERNAL') {
        location = await externalLocation(this.ctx, input.storage_location, 'volume');
        await mkdir(location.replace(/^file:\/\//, ''), { recursive: true });
      } else {
        // Databricks' words, which the CLI shows as they are.
        if (input.storage_location)
          throw invalidParameter('CreateVolume storage_location can not be provided.');
        const dir = this.dir(c, s, v);
        await mkdir(dir, { recursive: true });
        location = `file://${dir}`;
      }
      const r = this.ctx.c.volumes.set(
        full,
        clean({
          volume_id: uuid(),
          catalog_name: c,
          schema_name: s,
          name: v,
          volume_type: input.volume_type,
          storage_location: location,
          comment: input.comment ?? undefined,
          ...this.ctx.audit(),
        }),
      );
      return this.out(r);
    } finally {
      creating.delete(`volume:${full}`);
    }
  }

  get(fullName: string) {
    return this.out(this.record(fullName));
  }

  async list(catalog: string, schema: string) {
    const { catalog: c, schema: s } = await this.schemas.resolve(catalog, schema);
    return this.ctx.recordsUnder(this.ctx.c.volumes, `${c}.${s}.`).map((r) => this.out(r));
  }

  async update(
    fullName: string,
    u: { new_name?: string | null; comment?: string | null; owner?: string | null },
  ) {
    const r = this.record(fullName);
    const volumes = this.ctx.c.volumes;
    let key = `${r.catalog_name}.${r.schema_name}.${r.name}`;
    if (u.new_name && checkName('volume', u.new_name) !== r.name) {
      const nn = checkName('volume', u.new_name);
      const newKey = `${r.catalog_name}.${r.schema_name}.${nn}`;
      if (volumes.has(newKey)) throw volumeExists(newKey);
      const moved: VolumeRecord = { ...r, name: nn };
      if (r.volume_type === 'MANAGED') {
        const to = this.dir(r.catalog_name, r.schema_name, nn);
        await this.ctx.moveDir(this.dir(r.catalog_name, r.schema_name, r.name), to);
        moved.storage_location = `file://${to}`;
      }
      volumes.delete(key);
      volumes.set(newKey, moved);
      this.ctx.rekeyGrants(key, newKey);
      key = newKey;
    }
    const changed = volumes.update(key, (x) => {
      applyPatch(x, u);
      this.ctx.touch(x);
    })!;
    return this.out(changed);
  }

  async delete(fullName: string): Promise<void> {
    const r = this.record(fullName);
    if (r.volume_type === 'MANAGED')
      await rm(this.dir(r.catalog_name, r.schema_name, r.name), { recursive: true, force: true });
    const full = `${r.catalog_name}.${r.schema_name}.${r.name}`;
    this.ctx.c.volumes.delete(full);
    this.ctx.dropRecordsUnder(`${full}.`, full);
  }

  /** Absolute directory of a volume (what /Volumes/<c>/<s>/<v> serves); 404 when the volume is missing. */
  async directory(catalog: string, schema: string, volume: string): Promise<string> {
    const r = this.record(`${catalog}.${schema}.${volume}`);
    const dir = r.storage_location.replace(/^file:\/\//, '');
    await mkdir(dir, { recursive: true });
    return dir;
  }
}
