import { defineService } from '@minilake/core';

export const sqlObjectsService = defineService({
  name: 'sql-objects',
  description:
    'Databricks SQL queries and alerts (evaluated on real results), legacy dashboards, widgets, visualizations',
  uses: ['sql'],
  // iam: permissions object types; workspace-admin: the notification destinations alerts deliver to.
  optionalUses: ['iam', 'workspace-admin'],
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: [
    '/api/2.0/sql/queries',
    '/api/2.0/sql/alerts',
    '/api/2.0/preview/sql/queries',
    '/api/2.0/preview/sql/alerts',
    '/api/2.0/preview/sql/dashboards',
    '/api/2.0/preview/sql/widgets',
    '/api/2.0/preview/sql/visualizations',
    '/api/2.0/alerts',
    '/_minilake/sql/alerts',
    '/_minilake/sql/queries',
    '/_minilake/alerts',
    '/api/2.0/permissions/queries',
    '/api/2.0/permissions/sql/queries',
    '/api/2.0/permissions/alerts',
    '/api/2.0/permissions/sql/alerts',
    '/api/2.0/permissions/dbsql-dashboards',
    '/api/2.0/permissions/sql/dashboards',
  ],
  async create(ctx) {
    return (await import('./create.js')).createSqlObjects(ctx);
  },
});
