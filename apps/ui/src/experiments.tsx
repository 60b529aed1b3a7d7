/**
 * MLflow experiments and runs (the MLflow REST API MiniLake serves), each linked to its page in the MLflow UI
 * at /mlflow/. Listing them starts MiniLake's MLflow server if it is not running (seconds); without the
 * MLflow install the view shows the server's error, which says what to run.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ErrorBox } from './results';

interface Experiment {
  experiment_id: string;
  name: string;
  last_update_time?: number;
}
interface MlRun {
  info: { run_id: string; run_name?: string; status?: string; start_time?: number };
  data?: { metrics?: { key: string; value: number }[]; params?: { key: string; value: string }[] };
}

const when = (ms?: number) => (ms ? new Date(ms).toLocaleString() : '');
const experimentPage = (id: string) => `/mlflow/#/experiments/${encodeURIComponent(id)}`;
const runPage = (exp: string, run: string) => `${experimentPage(exp)}/runs/${encodeURIComponent(run)}`;

export function ExperimentsView(props: { visible: boolean }) {
  const [experiments, setExperiments] = useState<Experiment[] | null>(null);
  const [exp, setExp] = useState<Experiment | null>(null);
  const [runs, setRuns] = useState<MlRun[]>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!props.visible) return;
    let stop = false;
    const load = async () => {
      try {
        const r = await api<{ experiments?: Experiment[] }>('POST', '/api/2.0/mlflow/experiments/search', {
          max_results: 200,
          order_by: ['last_update_time DESC'],
        });
        if (stop) return;
        // Databricks experiments are named by workspace paths; MLflow's own Default experiment is not one.
        setExperiments((r.experiments ?? []).filter((e) => e.name.startsWith('/')));
        if (exp) {
          const rr = await api<{ runs?: MlRun[] }>('POST', '/api/2.0/mlflow/runs/search', {
            experiment_ids: [exp.experiment_id],
            max_results: 50,
            order_by: ['attributes.start_time DESC'],
          });
          if (!stop) setRuns(rr.runs ?? []);
        }
        setError(null);
      } catch (e) {
        if (!stop) setError(e);
      }
    };
    void load();
    const t = setInterval(() => void load(), 5000);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, [props.visible, exp?.experiment_id]);
  return (
    <section class="view jobs" hidden={!props.visible} aria-label="MLflow experiments">
      <div class="tree">
        <h2>Experiments</h2>
        {experiments === null && !error && <p class="note">Loading (the MLflow server may be starting)…</p>}
        {experiments?.length === 0 && <p class="note">No experiments yet (MLflow API /api/2.0/mlflow).</p>}
        {(experiments ?? []).map((e) => (
          <button
            type="button"
            class={`node${exp?.experiment_id === e.experiment_id ? ' active' : ''}`}
            title={e.name}
            onClick={() => setExp(e)}
          >
            {e.name.split('/').pop()}
          </button>
        ))}
      </div>
      <div class="detail">
        {error ? <ErrorBox error={error} /> : null}
        {exp ? (
          <>
            <h2>
              <a href={experimentPage(exp.experiment_id)} target="_blank" rel="noopener">
                {exp.name}
              </a>{' '}
              <span class="type">experiment {exp.experiment_id}</span>
            </h2>
            <table class="list">
              <thead>
                <tr>
                  <th>Run</th>
                  <th>Status</th>
                  <th>Started</th>
                  <th>Metrics</th>
                  <th>Params</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => (
                  <tr>
                    <td>
                      <a href={runPage(exp.experiment_id, r.info.run_id)} target="_blank" rel="noopener">
                        {r.info.run_name ?? r.info.run_id}
                      </a>
                    </td>
                    <td>
                      <span class="badge">{r.info.status}</span>
                    </td>
                    <td>{when(r.info.start_time)}</td>
                    <td>{(r.data?.metrics ?? []).map((m) => `${m.key}=${m.value}`).join(', ')}</td>
                    <td>{(r.data?.params ?? []).map((p) => `${p.key}=${p.value}`).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : (
          <p class="note">
            Pick an experiment to see its runs, or open the <a href="/mlflow/">MLflow UI</a>.
          </p>
        )}
      </div>
    </section>
  );
}
