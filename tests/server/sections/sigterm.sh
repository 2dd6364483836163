# shellcheck shell=bash
# tests/server/sections/sigterm.sh — SIGTERM finishes the judgement in progress.
# A section of the HTTP suite: sourced by tests/server/run.sh, in order, into
# its shell, with its helpers (lib.sh), its server running at $URL and the
# accounts and submissions of the sections before it.
tid=$(submit "$ALICE" "$f")
for _ in $(seq 100); do
    [ "$(db "SELECT status FROM submissions WHERE id = ${tid:-0}")" = judging ] && break
    sleep 0.05
done
stop_server TERM
check "SIGTERM: the server exits with status 0" $?
[ "$(db "SELECT status FROM submissions WHERE id = ${tid:-0}")" = done ]
check "SIGTERM: the judgement in progress was finished and recorded" $?
