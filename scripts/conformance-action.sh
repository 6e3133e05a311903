#!/usr/bin/env bash
# The GitHub Action's steps (action.yml): `install` builds the kit in the action's own checkout,
# `run` turns the action's inputs (INPUT_* variables) into the kit's arguments, runs it from the
# workspace, leaves the reports in INPUT_REPORT_DIR and sets the step's outputs. The kit's exit status
# is the step's: 0 passed, 1 failed, 2 bad input. scripts/conformance-action.test.ts runs `run` with
# the inputs an action passes.
set -euo pipefail

action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"

case "${1:-}" in
  install)
    major="$(node -p 'process.versions.node.split(".")[0]')"
    if [ "$major" -lt 20 ]; then
      echo "::error::the conformance kit needs Node 20.19 or later (actions/setup-node), found $(node --version)"
      exit 2
    fi
    # npm ci runs the package's prepare script, which builds dist/.
    (cd "$action_path" && npm ci --no-audit --no-fund)
    ;;
  run)
    kit="${CONFORMANCE_BIN:-$action_path/dist/conformance/bin.js}"
    dir="${INPUT_REPORT_DIR:-conformance-report}"
    if [ -z "${INPUT_BASE_URL:-}" ]; then
      echo "::error::the input base-url is required"
      exit 2
    fi
    args=(--base-url "$INPUT_BASE_URL" --profile "${INPUT_PROFILE:-spec}")
    if [ -n "${INPUT_MANIFEST:-}" ]; then args+=(--tokens "$INPUT_MANIFEST"); fi
    if [ -n "${INPUT_RATE_LIMIT:-}" ]; then args+=(--rate-limit "$INPUT_RATE_LIMIT"); fi
    case "${INPUT_STRICT:-false}" in
      true) args+=(--strict) ;;
      false | "") ;;
      *)
        echo "::error::the input strict is true or false, not ${INPUT_STRICT}"
        exit 2
        ;;
    esac
    if [ -n "${INPUT_BASELINE:-}" ]; then args+=(--baseline "$INPUT_BASELINE"); fi
    # Split on white space only, never expanding * or ?.
    set -f
    for reporter in ${INPUT_REPORTERS:-console}; do
      case "$reporter" in
        *:/*) args+=(--reporter "$reporter") ;;
        *:*) args+=(--reporter "${reporter%%:*}:$dir/${reporter#*:}") ;;
        *) args+=(--reporter "$reporter") ;;
      esac
    done
    # shellcheck disable=SC2206 # word splitting is the point: args is a list of arguments
    extra=(${INPUT_ARGS:-})
    set +f
    mkdir -p "$dir"
    set +e
    node "$kit" "${args[@]}" "${extra[@]}"
    code=$?
    set -e
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
      echo "report-dir=$dir" >>"$GITHUB_OUTPUT"
      echo "exit-code=$code" >>"$GITHUB_OUTPUT"
    fi
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
      echo "Conformance of ${INPUT_BASE_URL}: exit $code; reports in \`$dir\`." >>"$GITHUB_STEP_SUMMARY"
    fi
    exit "$code"
    ;;
  *)
    echo "usage: conformance-action.sh install|run" >&2
    exit 2
    ;;
esac
