"""for_each_task iterations as the Python SDK reads them: each iteration is a task run of its own, listed as
`iterations` by runs/get of the for-each task's run id, with its own state and get-output. Condition tasks
as the nested task, so no Spark install is needed."""
from databricks.sdk.service import jobs

from conftest import unique


def test_for_each_iterations_have_their_own_runs_and_outputs(w):
    created = w.jobs.create(
        name=unique("foreach"),
        tasks=[jobs.Task(
            task_key="each",
            for_each_task=jobs.ForEachTask(
                inputs="[3, 0, 7]",
                concurrency=2,
                task=jobs.Task(
                    task_key="check",
                    condition_task=jobs.ConditionTask(
                        op=jobs.ConditionTaskOp.GREATER_THAN, left="{{input}}", right="1"),
                ),
            ),
        )],
    )
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    each = run.tasks[0]
    assert each.for_each_task.stats.task_run_stats.total_iterations == 3
    assert each.for_each_task.stats.task_run_stats.succeeded_iterations == 3

    parent = w.jobs.get_run(each.run_id)
    assert parent.run_id == each.run_id
    assert [t.task_key for t in parent.tasks] == ["each"]
    assert len(parent.iterations) == 3
    assert len({it.run_id for it in parent.iterations}) == 3
    outcomes = []
    for it in parent.iterations:
        assert it.task_key == "check"
        assert it.state.life_cycle_state == jobs.RunLifeCycleState.TERMINATED
        assert it.state.result_state == jobs.RunResultState.SUCCESS
        out = w.jobs.get_run_output(it.run_id)
        assert out.metadata.run_id == it.run_id
        assert out.metadata.state.result_state == jobs.RunResultState.SUCCESS
        outcomes.append(it.condition_task.outcome)
    assert sorted(outcomes) == ["false", "true", "true"]
