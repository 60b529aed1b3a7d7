/**
 * SQL warehouses: the list (/ui/warehouses: state, size, auto stop, Start and Stop) and one warehouse
 * (/ui/warehouses/<id>, where Databricks' /sql/warehouses/<id> leads): its overview and its connection
 * details as Databricks' "Connection details" tab gives them (server hostname, port, protocol, HTTP path,
 * JDBC URL), taken from the API's own `odbc_params` and `jdbc_url`. Start and Stop call the real API
 * (`POST /api/2.0/sql/warehouses/<id>/start|stop`); pages re-read it while a warehouse is STARTING or
 * STOPPING, so its state moves live.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { copyText } from '../grid';
import { Play, Refresh, Server, Stop } from '../icons';
import { ErrorBox } from '../results';
import { href } from '../routes';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const API = '/api/2.0/sql/warehouses';
const moving = (w?: Json) => ['STARTING', 'STOPPING'].includes(w?.state);

/**
 * Runs `load` now, and again every `ms` while it answers true (a warehouse is STARTING or STOPPING). Returns
 * a function that starts the same loop again (after a Start or Stop).
 */
function useMovingPoll(load: () => Promise<boolean>, deps: unknown[], ms = 700): () => void {
  const [kick, setKick] = useState(0);
  useEffect(() => {
    let stop = false;
    let t: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (!stop && (await load())) t = setTimeout(() => void tick(), ms);
    };
    void tick();
    return () => {
      stop = true;
      if (t) clearTimeout(t);
    };
  }, [...deps, kick]);
  return () => setKick((n) => n + 1);
}

export function WarehouseBadge(props: { state?: string }) {
  return <span class={`badge wh-${String(props.state).toLowerCase()}`}>{props.state}</span>;
}

/** Start for a stopped warehouse, Stop otherwise; reports failures through `onError`, then `after()`. */
function StartStop(props: { w: Json; onError: (e: unknown) => void; after: () => void }) {
  const { w } = props;
  const act = async (what: 'start' | 'stop') => {
    try {
      await api('POST', `${API}/${encodeURIComponent(w.id)}/${what}`);
    } catch (e) {
      props.onError(e);
    }
    props.after();
  };
  return ['STOPPED', 'DELETED'].includes(w.state) ? (
    <button type="button" onClick={() => void act('start')} aria-label={`Start ${w.name}`}>
      <Play /> Start
    </button>
  ) : (
    <button
      type="button"
      onClick={() => void act('stop')}
      aria-label={`Stop ${w.name}`}
      disabled={w.state === 'STOPPING'}
    >
      <Stop /> Stop
    </button>
  );
}

const autoStop = (w: Json) => (w.auto_stop_mins ? `${w.auto_stop_mins} min` : 'off');

// ---- the list -------------------------------------------------------------------------------------------------

export function WarehousesPage() {
  const [items, setItems] = useState<Json[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async () => {
    try {
      const r = await api<{ warehouses?: Json[] }>('GET', API);
      setItems(r.warehouses ?? []);
      setError(null);
      return (r.warehouses ?? []).some(moving);
    } catch (e) {
      setError(e);
      return false;
    }
  };
  const again = useMovingPoll(load, []);
  return (
    <section class="view" aria-label="SQL warehouses">
      <div class="page-head">
        <h2>
          <Server size={18} /> SQL warehouses
        </h2>
        <button type="button" aria-label="Refresh warehouses" onClick={again}>
          <Refresh />
        </button>
      </div>
      {error ? <ErrorBox error={error} /> : null}
      {items && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Size</th>
              <th>Auto stop</th>
              <th>Id</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map((w) => (
              <tr key={w.id}>
                <td>
                  <a href={href({ view: 'warehouse', id: w.id })}>{w.name}</a>
                </td>
                <td>
                  <WarehouseBadge state={w.state} />
                </td>
                <td>{w.cluster_size}</td>
                <td>{autoStop(w)}</td>
                <td>
                  <code>{w.id}</code>
                </td>
                <td>
                  <StartStop w={w} onError={setError} after={again} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// ---- one warehouse ----------------------------------------------------------------------------------------------

/** A value of the connection details with a button that copies it, as Databricks' tab has. */
function Copyable(props: { label: string; value: string }) {
  return (
    <tr>
      <th scope="row">{props.label}</th>
      <td>
        <code>{props.value}</code>{' '}
        <button type="button" aria-label={`Copy ${props.label}`} onClick={() => void copyText(props.value)}>
          Copy
        </button>
      </td>
    </tr>
  );
}

export function WarehousePage(props: { id: string }) {
  const [w, setW] = useState<Json | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [missing, setMissing] = useState(false);
  const again = useMovingPoll(async () => {
    try {
      const r = await api<Json>('GET', `${API}/${encodeURIComponent(props.id)}`);
      setW(r);
      setMissing(false);
      setError(null);
      return moving(r);
    } catch (e) {
      // The API answers 404 for an id it does not know (and a deleted warehouse is gone from the list).
      setMissing(e instanceof ApiError && e.status === 404);
      setW(null);
      setError(e);
      return false;
    }
  }, [props.id]);
  const odbc = (w?.odbc_params ?? {}) as Json;
  return (
    <section class="view" aria-label={`Warehouse ${w?.name ?? props.id}`}>
      <p class="crumbs">
        <a href={href({ view: 'warehouses' })}>SQL warehouses</a> /
      </p>
      <div class="page-head">
        <h2>
          <Server size={18} /> {w?.name ?? props.id}
        </h2>
        {w && <WarehouseBadge state={w.state} />}
        {w && <StartStop w={w} onError={setError} after={again} />}
        <button type="button" aria-label="Refresh warehouse" onClick={again}>
          <Refresh />
        </button>
      </div>
      {missing && (
        <p class="note" role="status">
          No SQL warehouse has the id <code>{props.id}</code>.
        </p>
      )}
      {error ? <ErrorBox error={error} /> : null}
      {w && (
        <>
          <h3>Overview</h3>
          <table class="list details" aria-label="Overview">
            <tbody>
              <tr>
                <th scope="row">Id</th>
                <td>
                  <code>{w.id}</code>
                </td>
              </tr>
              <tr>
                <th scope="row">Size</th>
                <td>{w.cluster_size}</td>
              </tr>
              <tr>
                <th scope="row">Auto stop</th>
                <td>{autoStop(w)}</td>
              </tr>
              <tr>
                <th scope="row">Type</th>
                <td>
                  {w.enable_serverless_compute ? 'Serverless' : (w.warehouse_type ?? '')}
                  {w.channel?.name ? ` (channel ${w.channel.name})` : ''}
                </td>
              </tr>
              <tr>
                <th scope="row">Scaling</th>
                <td>
                  {w.min_num_clusters ?? 1}–{w.max_num_clusters ?? 1} clusters ({w.num_clusters ?? 0} running)
                </td>
              </tr>
              <tr>
                <th scope="row">Active sessions</th>
                <td>{w.num_active_sessions ?? 0}</td>
              </tr>
              <tr>
                <th scope="row">Creator</th>
                <td>{w.creator_name}</td>
              </tr>
            </tbody>
          </table>
          <h3>Connection details</h3>
          <table class="list details" aria-label="Connection details">
            <tbody>
              <Copyable label="Server hostname" value={String(odbc.hostname ?? location.hostname)} />
              <Copyable label="Port" value={String(odbc.port ?? location.port)} />
              <Copyable label="Protocol" value={String(odbc.protocol ?? location.protocol.slice(0, -1))} />
              <Copyable label="HTTP path" value={String(odbc.path ?? `/sql/1.0/warehouses/${w.id}`)} />
              {w.jdbc_url && <Copyable label="JDBC URL" value={String(w.jdbc_url)} />}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
