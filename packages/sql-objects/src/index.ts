import { defineService } from '@minilake/core';
import type { StatementOutcome } from '@minilake/sql';
import type { EvaluationResult, Subscription } from './evaluate.js';

export type { EvaluationResult, Subscription, Delivery, Verdict } from './evaluate.js';
export type { AlertRecord, QueryRecord } from './store.js';

/** What other services may use (`ctx.optionalPeer(sqlObjectsService)`; jobs' sql_task query and alert). */
export interface SqlObjectsApi {
  /**
   * Runs the saved query on its warehouse, in its catalog and schema, its parameters bound by the engine
   * (`parameters` replace the saved values by name). A DatabricksError for a missing or trashed query or
   * one without a warehouse; a SQL failure is a FAILED outcome.
   */
  runQuery(queryId: string, opts?: { parameters?: Record<string, string> }): Promise<StatementOutcome>;
  /**
   * Evaluates the alert now (its query's real result against its condition), records the state, and
   * notifies `subscriptions` when the state calls for it (not with `pauseSubscriptions`).
   */
  evaluateAlert(
    alertId: string,
    opts?: { subscriptions?: Subscription[]; pauseSubscriptions?: boolean },
  ): Promise<EvaluationResult>;
  /**
   * A legacy dashboard as `GET /api/2.0/preview/sql/dashboards/{id}` answers it (widgets, their
   * visualizations and queries); a 404 DatabricksError when there is none.
   */
  legacyDashboard(id: string): Record<string, unknown>;
  /** Resolves once the evaluations the clock's schedules started have finished (tests step the clock). */
  idle(): Promise<void>;
}

export const sqlObjectsService = defineService<SqlObjectsApi>({
  name: 'sql-objects',
  description:
    'Databricks SQL queries and alerts (evaluated on real results), legacy dashboards, widgets, visualizations',
  uses: ['sql'],
  // iam: permissions object types; workspace-admin: the notification destinations alerts deliver to;
  // workspace: an Alert V2 is also its `.dbalert.json` file there.
  optionalUses: ['iam', 'workspace-admin', 'workspace'],
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
    '/api/2.0/permissions/alertsv2',
  ],
  async create(ctx) {
    return (await import('./create.js')).createSqlObjects(ctx);
  },
});
