# syntax=docker/dockerfile:1
#
# The agent service (`sandscope serve`): HTTP API + SSE on port 7860.
#
#   docker build -f deploy/agent.Dockerfile -t sandscope-agent:0.1.0 .
#
# Built from the repository root (the workspaces depend on each other). There is no
# compile step: the workspaces export TypeScript source and tsx runs it (a runtime
# dependency of the agent), so the stages are "install production dependencies" and
# "the image that runs", which gets no npm cache, no dev tools and no build leftovers.

# Node 20 as in STACK.md; a full version so a rebuild gets the same runtime.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# Every workspace's package.json: npm ci checks the lockfile against all of them,
# even though only the agent's tree (`--workspace sandscope`) is installed.
COPY package.json package-lock.json .npmrc ./
COPY packages/engine/package.json packages/engine/
COPY packages/store/package.json packages/store/
COPY packages/eval/package.json packages/eval/
COPY packages/api/package.json packages/api/
COPY apps/agent/package.json apps/agent/
COPY apps/web/package.json apps/web/
# --omit=dev: only what the agent needs at run time. Install scripts stay blocked
# (npm 11's default); ONNXRUNTIME_NODE_INSTALL=skip keeps a future onnxruntime-node
# from downloading at install time (STACK.md).
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --omit=dev --workspace sandscope --no-audit --no-fund \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# HOST 0.0.0.0: the config's loopback default is right for a laptop, wrong in a container.
# SANDSCOPE_DATA_DIR: the one place the agent writes (embedded PGlite when no
# DATABASE_URL is given) — a volume, so the root filesystem can be read-only.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=7860 \
    SANDSCOPE_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json tsconfig.base.json ./
COPY packages ./packages
COPY apps/agent ./apps/agent
COPY corpus ./corpus
COPY eval-corpora ./eval-corpora
COPY docs/evaluation.json ./docs/evaluation.json
# The tree stays owned by root and is not writable by the process; only /data is
# (and /tmp, where tsx caches what it transpiles — mount a tmpfs there when the root
# filesystem is read-only).
RUN mkdir -p /data && chown 1000:1000 /data
VOLUME ["/data"]
# The base image's `node` user, by number so Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 7860
# /healthz answers 200 while the process serves, "degraded" parts included: a database
# or Redis outage is reported in the body and refused per request (fail closed), not
# "fixed" by restarting every replica. Node's own fetch: the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||7860)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node directly, not `npm start`: SIGTERM reaches the agent, which drains open runs
# and releases its database lease.
CMD ["node", "apps/agent/bin/sandscope.js", "serve"]
