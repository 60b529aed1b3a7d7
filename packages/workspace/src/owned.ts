/**
 * Objects another service owns in the workspace tree: a Lakeview dashboard is a `DASHBOARD` at
 * `<folder>/<name>.lvdash.json`, an MLflow experiment a `MLFLOW_EXPERIMENT` at its name. Databricks lists,
 * describes, exports, imports and deletes them through the Workspace API like notebooks, but their content
 * belongs to their own API. So the tree keeps an entry for each (path, type, object id, and the owner's id as
 * `resource_id`), and the owner registers one OwnedObjectType saying what the workspace operations mean for it.
 *
 * The owner changes its entries through the WorkspaceApi (putObject, moveObject, removeObject); the workspace
 * calls the hooks below for what a workspace client does (import, export, delete). A hook never calls back
 * putObject / moveObject / removeObject for the same object: the workspace records the outcome itself (import
 * runs under the tree's lock, so a call back would wait on itself).
 */
export interface OwnedObjectType {
  /**
   * A file imported with a name ending in this suffix (`.lvdash.json`) by `workspace/import` (format AUTO) or
   * `workspace-files/import-file` becomes one of these objects, as on Databricks: the name keeps its suffix.
   */
  importSuffix?: string;
  /**
   * Creates the object from imported bytes (or replaces `existing`'s content when the path already holds one
   * of these objects and the import overwrites): returns its resource id. Throws a DatabricksError for bytes
   * that are not such an object. Without this hook, such imports stay plain files.
   */
  import?(path: string, content: Buffer, existing: string | undefined): Promise<string> | string;
  /** The object's content for `workspace/export` (formats SOURCE, AUTO and RAW); 501 without this hook. */
  export?(resourceId: string): Promise<{ content: Buffer; file_type: string }>;
  /**
   * The object's entry was removed by a workspace client (`workspace/delete` of it or of a folder holding it,
   * or an import replacing it by something else): the owner deletes or trashes the object. Called after the
   * tree changed, outside its lock; errors are logged by the caller, not answered.
   */
  deleted?(resourceId: string, path: string): Promise<void> | void;
}

/** What an owner names when it places an entry. */
export interface OwnedEntry {
  type: string;
  resourceId: string;
}
