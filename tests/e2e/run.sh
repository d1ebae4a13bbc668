#!/usr/bin/env bash
# Browser tests of the web UI: installs what they need (Debian's chromium, playwright-core from
# the committed lock file), starts `tenka serve` on a free localhost port with a temporary data
# directory, runs every tests/e2e/*.test.mjs with node's test runner, saves screenshots to
# artifacts/screenshots/, and ends with the line "N passed, N failed".
# The node-only tests among them (i18n.test.mjs: the catalogue plurals; source.test.mjs; the first
# test of language.test.mjs) run in the same pass, so `cargo xtask test` runs them too. No test
# needs the mock server: it is only for E2E_SERVER=mock.
#
# Run with: bash tests/e2e/run.sh            (after `cargo build -p host`)
# Environment: TENKA_BIN (the tenka binary; default the newest of target/{debug,release}/tenka),
# TENKA_RULESETS (the folder of ruleset components; default target/rulesets),
# E2E_SERVER=mock (use the Node stand-in server instead, for work on the UI alone),
# E2E_RULESET (the ruleset to play; default the first listed), E2E_FILTER (a test name pattern),
# E2E_DEFAULT_RULESET (the server's --default-ruleset, the one the lobby opens on; default shogun).
# E2E_CONCURRENCY (how many test files run at once; default 3).
# examples.test.mjs and days.test.mjs start a `tenka serve` of their own (with an operator token;
# days.test.mjs with a movable clock and a loopback SMTP server), from the E2E_TENKA_BIN and
# E2E_TENKA_RULESETS this script sets.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x /usr/bin/chromium ]; then
  echo "e2e: installing Debian's chromium"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq -o DPkg::Lock::Timeout=300 chromium >/dev/null
fi
if ! command -v node >/dev/null; then
  echo "e2e: node is missing (apt-get install nodejs npm)" >&2
  exit 1
fi
if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
  echo "e2e: installing playwright-core (npm ci)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
data="$(mktemp -d "${TMPDIR:-/tmp}/tenka-e2e-data.XXXXXX")"
server_log="$data/server.log"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$data"
}
trap cleanup EXIT

if [ "${E2E_SERVER:-tenka}" = mock ]; then
  node "$here/mock/server.mjs" "$port" >"$server_log" 2>&1 &
  server_pid=$!
else
  bin="${TENKA_BIN:-}"
  if [ -z "$bin" ]; then
    bin="$(ls -t target/debug/tenka target/release/tenka 2>/dev/null | head -n 1 || true)"
  fi
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "e2e: no tenka binary (build it with 'cargo build -p host' or set TENKA_BIN)" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
  rulesets="${TENKA_RULESETS:-target/rulesets}"
  # For the tests that start a server of their own (examples.test.mjs: one with an operator token).
  export E2E_TENKA_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" E2E_TENKA_RULESETS="$(cd "$rulesets" 2>/dev/null && pwd || echo "$rulesets")"
  # Bots move at once and fixed seeds are allowed, so runs are quick and repeatable. The test
  # files run side by side, all from 127.0.0.1, so the per-address limits meant for strangers
  # (games and sign-ins per minute, requests per second) are off; tests/it checks them.
  "$bin" serve --addr "127.0.0.1:$port" --data "$data/db" --rulesets "$rulesets" --maps "$root/maps" \
    --web "$root/web-ui" --bot-pace-ms 0 --allow-fixed-seeds --default-ruleset "${E2E_DEFAULT_RULESET:-shogun}" \
    --games-per-minute 0 --sign-ins-per-minute 0 --requests-per-second 0 >"$server_log" 2>&1 &
  server_pid=$!
fi

base="http://127.0.0.1:$port"
ready=""
for _ in $(seq 1 150); do
  if node -e "fetch('$base/api/rulesets').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null; then ready=1; break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  echo "e2e: the server did not start; its output:" >&2
  cat "$server_log" >&2 || true
  echo "0 passed, 1 failed"
  exit 1
fi

mkdir -p artifacts/screenshots
export E2E_BASE_URL="$base" E2E_SCREENSHOTS="$root/artifacts/screenshots"
# Most of a browser test's time is spent waiting (a whole run used a quarter of one core), so
# the files run three at a time: E2E_CONCURRENCY=1 runs them one by one.
# A test that fails with a browser or a server still open would keep its file running for ever:
# --test-force-exit ends each file once its tests are done.
args=(--test --test-reporter=tap --test-force-exit "--test-concurrency=${E2E_CONCURRENCY:-3}")
if [ -n "${E2E_FILTER:-}" ]; then args+=(--test-name-pattern "$E2E_FILTER"); fi
report="$data/report.tap"
set +e
# The longest files start first, so that none of them is left running alone at the end.
files=("$here/full-game.test.mjs" "$here/block-wargame.test.mjs" "$here/days.test.mjs")
for file in "$here"/*.test.mjs; do
  case " ${files[*]} " in *" $file "*) ;; *) files+=("$file") ;; esac
done
node "${args[@]}" "${files[@]}" | tee "$report"
status=${PIPESTATUS[0]}
set -e
passed="$(grep -E '^# pass ' "$report" | tail -n 1 | awk '{print $3}')"
failed="$(grep -E '^# fail ' "$report" | tail -n 1 | awk '{print $3}')"
if [ "$status" != 0 ] && [ "${failed:-0}" = 0 ]; then
  failed=1
  echo "e2e: the test runner failed; server output:" >&2
  tail -n 40 "$server_log" >&2 || true
fi
if [ "${failed:-0}" != 0 ]; then
  echo "e2e: server output (last lines):" >&2
  tail -n 20 "$server_log" >&2 || true
fi
echo "screenshots: artifacts/screenshots/"
echo "${passed:-0} passed, ${failed:-0} failed"
[ "$status" = 0 ]
