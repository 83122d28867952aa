#!/usr/bin/env bash
# The runtime crate's public API, as cargo-public-api lists it (every feature on; blanket impls
# left out, auto-trait and derived impls kept: losing `Send` or `Clone` is a break too), checked
# against the committed listing `agents-kt/public-api.txt`. A change to the API must update the
# listing, so every addition, removal and changed signature is seen in review; anything removed
# or changed also needs its CHANGELOG line with the one-line migration.
#
# There is no published release to run a semver checker against yet; once there is, this is
# where `cargo semver-checks --baseline-version` joins the listing.
#
# cargo-public-api is installed into the cache once; it reads rustdoc's JSON, which only the
# nightly toolchain writes. The build goes to the cache too, so a later clone (CI) reuses it.
# Usage: scripts/public-api.sh            check (fails with the diff when the API changed)
#        scripts/public-api.sh --write    rewrite the listing from the code
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${AGENTS_KT_CACHE:-$HOME/.cache/agents-kt}"
source scripts/cargo-tool.sh
cargo_tool cargo-public-api 0.52.0 cargo-public-api
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "[public-api.sh] rustdoc JSON needs the nightly toolchain (rustup toolchain install nightly)" >&2
  exit 1
fi

listing="agents-kt/public-api.txt"
current="$(mktemp)"
trap 'rm -f "$current"' EXIT
CARGO_TARGET_DIR="$cache/public-api-target" \
  cargo public-api --package agents-kt --all-features --simplified --color never >"$current"

if [ "${1:-}" = "--write" ]; then
  cp "$current" "$listing"
  echo "[public-api.sh] wrote $listing ($(wc -l <"$listing") lines)" >&2
  exit 0
fi
if ! diff -u "$listing" "$current"; then
  cat >&2 <<'MSG'
[public-api.sh] the public API differs from agents-kt/public-api.txt (diff above: - was, + is).
If the change is meant, run scripts/public-api.sh --write and commit the listing; anything
removed or changed also needs its CHANGELOG.md line with the one-line migration.
MSG
  exit 1
fi
echo "[public-api.sh] the public API matches $listing" >&2
