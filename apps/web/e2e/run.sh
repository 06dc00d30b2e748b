#!/usr/bin/env bash
# Browser tests: build the website once, then run Playwright against it.
#   apps/web/e2e/run.sh                 # against the real agent (npx sandscope serve)
#   E2E_AGENT=fake apps/web/e2e/run.sh  # against the fake agent in e2e/fake-agent.mts
# Extra arguments go to `playwright test` (e.g. a spec file or --grep).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
export E2E_AGENT_TOKEN="${E2E_AGENT_TOKEN:-e2e-$(node -e 'process.stdout.write(require("crypto").randomBytes(18).toString("hex"))')}"
rm -rf test-results/agent-data test-results/artifacts
mkdir -p test-results/screenshots
if [ "${E2E_SKIP_BUILD:-}" != "1" ]; then npx next build; fi
exec npx playwright test -c playwright.config.ts "$@"
