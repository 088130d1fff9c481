"""The multi-node test (README "Running in production"): the production process layout on this machine.

    make multinode        # or: .venv/bin/python -m project.multinode

Starts, as separate processes: PgBouncer (transaction mode) in front of this machine's PostgreSQL,
an HAProxy TCP proxy in front of this machine's Redis (so the test can take "Redis" away from its own
processes only), three web nodes (waitress) behind an HAProxy load balancer that checks
/health/ready, two Celery workers and one Celery beat, after one migration step. Every process of the
service talks to PostgreSQL through PgBouncer (DATABASE_TRANSACTION_POOLING=1) and to Redis for the
broker and the cache; each logs JSON. The service runs in sandbox mode: its test rails and funding
endpoint are what the scenarios drive, and production mode refuses loopback webhook endpoints.

Scenarios, each printing its figures; the run exits 1 when any check fails:
0. quote+execute through PgBouncer on a fourth node that prepares its statements (the setting for
   PostgreSQL directly; its errors are printed, not failed) and on a node of the cluster;
1. money races across nodes: 50 executes of one quote with one Idempotency-Key, and 200 quote+execute
   pairs draining one account, spread over the three nodes;
2. SIGKILL of one web node and one worker under load (through the load balancer, each execute
   retried with its Idempotency-Key on a connection error or 5xx);
3. a webhook storm of 10,000 events through the two workers;
4. readiness red and green again when PgBouncer, then the Redis proxy, is stopped;
5. a wallet session that every node has checked (and remembers), revoked on one node: a stamped
   execute with it is refused on each node right after.

Environment: MULTINODE_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/multinode; dropped and
created anew at each run), MULTINODE_REDIS_URL (default redis://127.0.0.1:6379/15;
that database is flushed), MULTINODE_STORM_EVENTS (10000). Ports 8360-8395 on 127.0.0.1.
"""
