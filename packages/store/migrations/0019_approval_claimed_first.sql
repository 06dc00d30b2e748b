-- Issue 12, defect 7: twenty concurrent approvals of one gated run on a server
-- left fourteen failed child runs. Each approval created its child run first and
-- only then met approval_gated_run_id_key, so every loser had already made a run.
-- The approval row is now claimed first, in the same transaction as its child
-- run: the unique constraint on gated_run_id decides the winner before any child
-- exists, and a loser's transaction rolls back with nothing left behind. The
-- reference to the approval run is checked at commit, when that run exists.
alter table approval alter constraint approval_approval_run_id_fkey deferrable initially deferred;
