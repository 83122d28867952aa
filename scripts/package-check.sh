#!/usr/bin/env bash
# Both crates package as they would be published (metadata, licence files, the macros' exact
# version; nothing is uploaded), and each package holds every source file git has for the crate:
# what a verifying build of the package would catch, without its second cold build of the whole
# dependency tree (minutes on a fresh machine).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo publish --dry-run --no-verify -p agents-kt-macros -p agents-kt
status=0
for crate in agents-kt agents-kt-macros; do
  listed="$(cargo package --list --allow-dirty -p "$crate")"
  while IFS= read -r file; do
    if ! grep -qxF "$file" <<<"$listed"; then
      echo "[package-check] $crate: $file is not in the package" >&2
      status=1
    fi
  done < <(cd "$crate" && git ls-files src)
done
exit "$status"
