# syntax=docker/dockerfile:1
#
# The website (Next.js behind apps/web/server.mts) on port 3000.
#
#   docker build -f deploy/web.Dockerfile -t sandscope-web:0.1.0 .
#
# Built from the repository root. Three stages: `build` has the dev dependencies
# and runs `next build`; `deps` installs the website's production dependencies
# alone; the final image takes node_modules from `deps` and only the compiled
# `.next` from `build`, so nothing the build needed ships.
#
# No secret is needed to build: the website reads AGENT_URL and AGENT_TOKEN at run
# time on the server only (apps/web/README.md; tests/bundle.test.ts checks the
# token never reaches a bundle), so one image serves every deployment.

# Node 20 as in STACK.md; a full version so a rebuild gets the same runtime.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json .npmrc tsconfig.json tsconfig.base.json ./
COPY packages/engine/package.json packages/engine/
COPY packages/store/package.json packages/store/
COPY packages/eval/package.json packages/eval/
COPY packages/api/package.json packages/api/
COPY apps/agent/package.json apps/agent/
COPY apps/web/package.json apps/web/
# Everything, dev dependencies included: next build wants the type packages.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
COPY packages ./packages
COPY apps/web ./apps/web
# The build cache is for the next build on a developer's machine, not for the image.
RUN npm run build --workspace @sandscope/web && rm -rf apps/web/.next/cache

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages/engine/package.json packages/engine/
COPY packages/store/package.json packages/store/
COPY packages/eval/package.json packages/eval/
COPY packages/api/package.json packages/api/
COPY apps/agent/package.json apps/agent/
COPY apps/web/package.json apps/web/
# --omit=dev, and only the website's tree: next, react, zod, tsx (server.mts runs
# under it) and the workspace packages it imports.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --omit=dev --workspace @sandscope/web --no-audit --no-fund \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json tsconfig.base.json ./
# The workspace packages the website imports, as source (server.mts and Next resolve them).
COPY packages ./packages
COPY apps/web ./apps/web
COPY --from=build /app/apps/web/.next ./apps/web/.next
# The tree stays owned by root and read-only to the process. Next may write under
# .next/cache and tsx caches under /tmp: both are mount points for a tmpfs/emptyDir
# when the root filesystem is read-only, and writable by the process when it is not.
RUN mkdir -p apps/web/.next/cache && chown 1000:1000 apps/web/.next/cache
# The base image's `node` user, by number so Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 3000
# /healthz is the website's own liveness and never calls the agent (app/healthz/route.ts).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
WORKDIR /app/apps/web
# --host/--port as flags: server.mts lets its (absent) flags override WEB_HOST and
# WEB_PORT from the environment, so only the flags are sure to take effect.
CMD ["node", "--import", "tsx", "server.mts", "--host", "0.0.0.0", "--port", "3000"]
