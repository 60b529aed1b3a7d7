/**
 * What a renderer of dashboards needs, without the service: the serialized format's types and the statements
 * each widget runs. The web UI imports this entry (no Node modules behind it), so the browser and the server's
 * refresh compile the same SQL.
 */
export * from './model.js';
export {
  compileQuery,
  quoteName,
  normalizeExpression,
  type CompiledQuery,
  type FilterSelection,
  type StatementParameter,
} from './compile.js';
export {
  planWidget,
  filtersFor,
  parameterValues,
  widgetsOf,
  ROW_CAP,
  type PlannedQuery,
  type Selections,
} from './plan.js';
