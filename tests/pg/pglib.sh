# A throw-away PostgreSQL cluster for the tests; sourced, not run.
#
#   . tests/pg/pglib.sh
#   pg_start || exit        # PG_URL=postgresql://attnjudge@127.0.0.1:PORT/attnjudge_test
#   ...                     # tests using "$PG_URL"
#   pg_stop                 # stops that cluster (its own pid) and deletes it
#
#   pg_pause / pg_resume    # stop the server, keeping the cluster; start it
#                           # again on the same port (an outage, for tests)
#
# pg_start makes a cluster in a new temporary directory (initdb), starts it
# with pg_ctl listening only on 127.0.0.1, on a free port, and on a unix
# socket inside that directory; fsync is off (a crash only loses a test
# database), authentication is "trust" for the cluster's one role, attnjudge,
# and it creates the database attnjudge_test. It prints the URL and sets
# PG_URL, PG_PORT, PG_DIR and PG_PID. It returns 0; 2 (with a line starting
# "skipped:") when PostgreSQL's server programs are not installed; 1 when the
# cluster does not start (with its log). Every wait is bounded.
#
# PostgreSQL refuses to run as root. As root the cluster belongs to nobody
# (the one unprivileged user a fresh Debian is sure to have): the directory
# is given to nobody and initdb, pg_ctl and postgres run through setpriv
# with nobody's uid and gid and no supplementary groups.
#
# The server programs are looked for in PG_BINDIR if set, then in the newest
# /usr/lib/postgresql/*/bin (Debian's place: not on PATH), then on PATH.

PG_USER=attnjudge
PG_DB=attnjudge_test

# pg_bindir: prints the directory of initdb, pg_ctl and postgres, or fails
pg_bindir() {
    if [ -n "${PG_BINDIR:-}" ] && [ -x "$PG_BINDIR/initdb" ]; then
        echo "$PG_BINDIR"
        return 0
    fi
    for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -t/ -k5 -n -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then
            echo "$d"
            return 0
        fi
    done
    d=$(command -v initdb 2>/dev/null) || return 1
    d=$(dirname "$(readlink -f "$d")")
    [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && echo "$d"
}

# pg_as COMMAND...: runs the command as the cluster's owner (nobody as
# root, else the caller), from inside the cluster's directory
pg_as() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd "$PG_DIR" && setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" \
            --clear-groups -- "$@")
    else
        (cd "$PG_DIR" && "$@")
    fi
}

# pg_free_port: prints a TCP port nothing listens on at 127.0.0.1 now
pg_free_port() {
    /usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' 2>/dev/null && return 0
    # without python3: a random port in the dynamic range
    echo $((49152 + $(od -An -N2 -tu2 /dev/urandom) % 16000))
}

pg_start() {
    PG_BIN=$(pg_bindir) || {
        echo "skipped: PostgreSQL not installed (no initdb; scripts/deps.sh test installs postgresql)"
        return 2
    }
    if [ "$(id -u)" -eq 0 ] && ! id nobody >/dev/null 2>&1; then
        echo "skipped: running as root and there is no user nobody to run PostgreSQL as"
        return 2
    fi
    PG_DIR=$(mktemp -d /tmp/attnjudge-pg.XXXXXX) || return 1
    chmod 0700 "$PG_DIR"
    [ "$(id -u)" -eq 0 ] && chown nobody: "$PG_DIR"
    if ! pg_as timeout 120 "$PG_BIN/initdb" -D "$PG_DIR/data" -U "$PG_USER" \
        --auth=trust -E UTF8 --locale=C --no-sync >"$PG_DIR/initdb.log" 2>&1; then
        echo "pg_start: initdb failed:"
        cat "$PG_DIR/initdb.log"
        pg_stop
        return 1
    fi
    # a port can be taken between the choice and the start: three tries
    for _ in 1 2 3; do
        PG_PORT=$(pg_free_port)
        PG_OPTS="-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off \
                -c synchronous_commit=off -c full_page_writes=off -c max_connections=60"
        if pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
            -o "$PG_OPTS" start >"$PG_DIR/pg_ctl.log" 2>&1; then
            break
        fi
        PG_PORT=""
        grep -q "already in use" "$PG_DIR/server.log" 2>/dev/null || break
    done
    if [ -z "$PG_PORT" ]; then
        echo "pg_start: the server did not start:"
        cat "$PG_DIR/pg_ctl.log" "$PG_DIR/server.log" 2>/dev/null | tail -n 30
        pg_stop
        return 1
    fi
    PG_PID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
    if ! pg_as timeout 30 "$PG_BIN/createdb" -h "$PG_DIR" -p "$PG_PORT" -U "$PG_USER" "$PG_DB" \
        >"$PG_DIR/createdb.log" 2>&1; then
        echo "pg_start: createdb failed:"
        cat "$PG_DIR/createdb.log"
        pg_stop
        return 1
    fi
    PG_URL="postgresql://$PG_USER@127.0.0.1:$PG_PORT/$PG_DB"
    export PG_URL PG_PORT PG_DIR PG_PID PG_BIN PG_OPTS
    echo "$PG_URL"
}

# pg_pause: stops the server of the cluster pg_start made (fast shutdown:
# its clients' connections are cut), keeping the cluster; 0 or 1
pg_pause() {
    [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ] || return 1
    : >"$PG_DIR/paused"
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1
}

# pg_resume: starts it again, on the same port with the same settings
pg_resume() {
    [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ] || return 1
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 -o "$PG_OPTS" \
        start >"$PG_DIR/pg_ctl.log" 2>&1 || return 1
    PG_PID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
}

# pg_stop: stops the cluster pg_start made (pg_ctl on its directory, then
# its postmaster's pid if that did not end it) and deletes the directory
pg_stop() {
    [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ] || return 0
    if [ -f "$PG_DIR/data/postmaster.pid" ]; then
        # the running server's own pid (pg_resume in a child shell started
        # a new one)
        PG_PID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
        pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
            pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w -t 10 stop >/dev/null 2>&1
    elif [ -f "$PG_DIR/paused" ]; then
        PG_PID="" # stopped by pg_pause: the pid pg_start saw is no longer ours
    fi
    if [ -n "${PG_PID:-}" ] && kill -0 "$PG_PID" 2>/dev/null; then
        kill -KILL "$PG_PID" 2>/dev/null
        i=0
        while kill -0 "$PG_PID" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    rm -rf "$PG_DIR"
    PG_DIR=""
    PG_PID=""
    PG_URL=""
}
