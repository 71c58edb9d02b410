"""Stage jobs on a pool of worker machines through Temporal: executor, worker, workflow.

`TemporalExecutor` (`executor.py`) is another `Executor`: one workflow per stage job, with
one activity, under the workflow id `conveyor:<repo>:issue-N`, so Temporal itself refuses a
second job for an issue. The lease model changed for it: a remote job claims in the
orchestrator's lane (`--lane`), not the worker's, so the lane is the orchestrator, not the
machine; any worker's attempt finds the lane's own claim and lease (or the lease its
interrupted predecessor cleared) and resumes the stage. What keeps two attempts from running
at once is Temporal (a retry is scheduled only once the previous attempt failed or its
heartbeat timed out) and `PR_SET_PDEATHSIG`: a job dies with its worker (SIGTERM, so it saves
its issue and pushes its commits), so a killed worker leaves no orphan beside the retry. A
worker cut off from Temporal but alive keeps its job until its next heartbeat is refused (the
job is then SIGTERMed); it could overlap the retry for that long, which is why the heartbeat
time-out (default 30 s) must be well above a job's save on SIGTERM (about a second).

The tick's jobs are the home's `job.json` files plus the executor's `RemoteJobs` (each built
from the activity's heartbeat details, the remote `job.json`), so the watchdog, `status.json`
(a `worker` per job) and the live view treat remote jobs as local ones; their sessions go to
the home's ledger when their workflow closes. Temporal retries a job at most
`1 + limits.max_resumes` times; once it gives up, the job's last `job.json` is dead and
unfinished, and the watchdog's own resumes (and then its `agent:stopped-job` stop) follow as
for a local job. Steering remote sessions is not supported (the control socket is on the
worker). A worker forks its jobs from a preloaded fork server (`zygote.py`), because its own
process runs Temporal's threads and must not fork.
"""
